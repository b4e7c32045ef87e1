/* parser.y - the .evt grammar: a pure, located bison parser that builds the AST.
 *
 * Error recovery resynchronises at statement starts, at `;` and `}` inside an
 * epilogue, and at `epilogue`/`kernel` at the top level (the scanner closes a
 * body whose `}` is missing), so one run reports every independent syntax
 * error.  A statement whose text is lost to an error still defines its name
 * (as poisoned), so its uses raise no second error. */

%code requires {
#include "parse_state.h"
}

%code provides {
int evt_yylex(EVT_YYSTYPE *lval, src_loc *lloc, void *scanner);
}

%code {
#include <stdlib.h>
#include <string.h>

/* A rule's location is where its first symbol starts. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)          \
    do {                                     \
        if (N)                               \
            (Cur) = YYRHSLOC(Rhs, 1);        \
        else                                 \
            (Cur) = YYRHSLOC(Rhs, 0);        \
    } while (0)

#define YYMAXDEPTH PARSE_MAX_STACK
#define scanner ps->scanner

/* Bison says "memory exhausted" both past YYMAXDEPTH and when its stack
 * cannot grow; the second is the machine's memory, not the input's nesting. */
#define YYMALLOC(size) parse_alloc(ps, size)
#define YYFREE free
static void *parse_alloc(parse_state *ps, size_t size);

static void evt_yyerror(src_loc *loc, parse_state *ps, const char *msg);
static ast_stmt *new_stmt(parse_state *ps, ast_stmt_kind kind, src_loc loc, const char *name,
                          src_loc name_loc);
static evt_shape shape_of(parse_state *ps, const char *d0, src_loc l0, const char *d1, src_loc l1);
static ast_expr *binary(parse_state *ps, ast_binop op, src_loc loc, ast_expr *l, ast_expr *r);
}

%define api.pure full
%define api.prefix {evt_yy}
%define api.location.type {src_loc}
%define parse.error detailed
%locations
%expect 0
%parse-param {parse_state *ps}
%lex-param {void *scanner}

%union {
    const char *str;
    float num;
    size_t count;
    evt_elem elem;
    evt_shape shape;
    ast_expr *expr;
    ast_stmt *stmt;
    ast_epilogue *epi;
    ast_kernel *kernel;
    ast_operand operand;
    struct { evt_elem elem; evt_shape shape; } type;
}

%token TOK_EPILOGUE "'epilogue'"
%token TOK_KERNEL   "'kernel'"
%token TOK_IN       "'in'"
%token TOK_PARAM    "'param'"
%token TOK_LET      "'let'"
%token TOK_OUT      "'out'"
%token TOK_WITH     "'with'"
%token <elem> TOK_ELEM "element type"
%token <str> TOK_IDENT "identifier"
%token <num> TOK_NUMBER "number"
%token TOK_LE "'<='"
%token TOK_GE "'>='"
%token TOK_EQ "'=='"
%token TOK_NE "'!='"

%right '?' ':'
%left '<' '>' TOK_LE TOK_GE TOK_EQ TOK_NE
%left '+' '-'
%left '*' '/'
%precedence NEG

%type <expr> expr args
%type <stmt> decl
%type <epi> stmts
%type <kernel> operands
%type <operand> operand
%type <type> type
%type <shape> shape
%type <num> signed_number

%%

/* file -> { epilogue | kernel } */
file
    : %empty
    | file item
    ;

/* item -> epilogue | kernel; after a syntax error, skip to the next one */
item
    : epilogue
    | kernel
    | error
    ;

/* epilogue -> 'epilogue' IDENT '{' { stmt } '}'; the mid-rule action counts the
 * errors before the body (it runs before the body's first token is read) */
epilogue
    : TOK_EPILOGUE TOK_IDENT '{' <count>{ $$ = ps->diags->errors; } stmts '}'
        {
            if ($5) {
                $5->name = $2;
                $5->loc = @2;
                $5->syntax_errors = ps->diags->errors - $4;
                ARENA_PUSH(ps->arena, ps->file->epilogues, ps->file->nepilogues,
                           ps->file->epilogues_cap, $5);
            }
            yyerrok; /* a whole epilogue is a safe point: report the next error at once */
        }
    ;

/* stmts -> { stmt } */
stmts
    : %empty { $$ = arena_alloc(ps->arena, sizeof *$$); }
    | stmts decl
        {
            $$ = $1;
            if ($$ && $2)
                ARENA_PUSH(ps->arena, $$->stmts, $$->nstmts, $$->stmts_cap, $2);
        }
    | stmts decl ';'
        {
            $$ = $1;
            if ($$ && $2)
                ARENA_PUSH(ps->arena, $$->stmts, $$->nstmts, $$->stmts_cap, $2);
        }
    | stmts error { $$ = $1; }
    | stmts error ';' { $$ = $1; }
    ;

/* decl -> input | param | let | output; `error` keeps the name, poisoned */
decl
    : TOK_IN TOK_IDENT ':' type
        {
            $$ = new_stmt(ps, AST_IN, @1, $2, @2);
            if ($$) {
                $$->elem = $4.elem;
                $$->shape = $4.shape;
            }
        }
    | TOK_PARAM TOK_IDENT ':' TOK_ELEM
        {
            $$ = new_stmt(ps, AST_PARAM, @1, $2, @2);
            if ($$)
                $$->elem = $4;
        }
    | TOK_PARAM TOK_IDENT ':' TOK_ELEM '=' signed_number
        {
            $$ = new_stmt(ps, AST_PARAM, @1, $2, @2);
            if ($$) {
                $$->elem = $4;
                $$->has_default = 1;
                $$->default_value = $6;
            }
        }
    | TOK_LET TOK_IDENT '=' expr
        {
            $$ = new_stmt(ps, AST_LET, @1, $2, @2);
            if ($$)
                $$->expr = $4;
        }
    | TOK_OUT TOK_IDENT ':' type '=' expr
        {
            $$ = new_stmt(ps, AST_OUT, @1, $2, @2);
            if ($$) {
                $$->elem = $4.elem;
                $$->shape = $4.shape;
                $$->expr = $6;
            }
        }
    | TOK_IN TOK_IDENT error    { $$ = new_stmt(ps, AST_IN, @1, $2, @2); if ($$) $$->poisoned = 1; }
    | TOK_PARAM TOK_IDENT error { $$ = new_stmt(ps, AST_PARAM, @1, $2, @2); if ($$) $$->poisoned = 1; }
    | TOK_LET TOK_IDENT error   { $$ = new_stmt(ps, AST_LET, @1, $2, @2); if ($$) $$->poisoned = 1; }
    | TOK_OUT TOK_IDENT error   { $$ = new_stmt(ps, AST_OUT, @1, $2, @2); if ($$) $$->poisoned = 1; }
    ;

/* signed_number -> [ '-' ] NUMBER */
signed_number
    : TOK_NUMBER { $$ = $1; }
    | '-' TOK_NUMBER { $$ = -$2; }
    ;

/* type -> ELEM [ '[' shape ']' ] */
type
    : TOK_ELEM { $$.elem = $1; $$.shape = EVT_SHAPE_SCALAR; }
    | TOK_ELEM '[' shape ']' { $$.elem = $1; $$.shape = $3; }
    ;

/* shape -> 'M' ',' 'N' | 'M' | 'N' */
shape
    : TOK_IDENT ',' TOK_IDENT { $$ = shape_of(ps, $1, @1, $3, @3); }
    | TOK_IDENT { $$ = shape_of(ps, $1, @1, NULL, @1); }
    ;

/* kernel -> 'kernel' IDENT '=' MAINLOOP '(' operand { ',' operand } ')' 'with' IDENT [ ';' ] */
kernel
    : TOK_KERNEL TOK_IDENT '=' TOK_IDENT '(' operands ')' TOK_WITH TOK_IDENT opt_semi
        {
            ast_kernel *k = $6;
            if (k) {
                k->name = $2;
                k->loc = @2;
                k->mainloop = $4;
                k->mainloop_loc = @4;
                k->epilogue = $9;
                k->epilogue_loc = @9;
                ARENA_PUSH(ps->arena, ps->file->kernels, ps->file->nkernels,
                           ps->file->kernels_cap, k);
            }
            yyerrok;
        }
    ;

opt_semi
    : %empty
    | ';'
    ;

/* operands -> operand { ',' operand } */
operands
    : operand
        {
            $$ = arena_alloc(ps->arena, sizeof *$$);
            if ($$)
                ARENA_PUSH(ps->arena, $$->operands, $$->noperands, $$->operands_cap, $1);
        }
    | operands ',' operand
        {
            $$ = $1;
            if ($$)
                ARENA_PUSH(ps->arena, $$->operands, $$->noperands, $$->operands_cap, $3);
        }
    ;

/* operand -> IDENT ':' ELEM [ LAYOUT ] */
operand
    : TOK_IDENT ':' TOK_ELEM
        {
            $$ = (ast_operand){.name = $1, .loc = @1, .elem = $3};
        }
    | TOK_IDENT ':' TOK_ELEM TOK_IDENT
        {
            $$ = (ast_operand){.name = $1, .loc = @1, .elem = $3, .layout = $4, .layout_loc = @4};
        }
    ;

/* expr -> expr '?' expr ':' expr | expr CMP expr | expr ARITH expr | '-' expr
 *       | IDENT '(' [ args ] ')' | IDENT | NUMBER | '(' expr ')' */
expr
    : expr '?' expr ':' expr
        {
            ast_expr *kids[3] = {$1, $3, $5};
            $$ = ast_node(ps->arena, ps->diags, AST_SELECT, @2, kids, 3);
        }
    | expr '<' expr    { $$ = binary(ps, AST_LT, @2, $1, $3); }
    | expr TOK_LE expr { $$ = binary(ps, AST_LE, @2, $1, $3); }
    | expr '>' expr    { $$ = binary(ps, AST_GT, @2, $1, $3); }
    | expr TOK_GE expr { $$ = binary(ps, AST_GE, @2, $1, $3); }
    | expr TOK_EQ expr { $$ = binary(ps, AST_EQ, @2, $1, $3); }
    | expr TOK_NE expr { $$ = binary(ps, AST_NE, @2, $1, $3); }
    | expr '+' expr    { $$ = binary(ps, AST_ADD, @2, $1, $3); }
    | expr '-' expr    { $$ = binary(ps, AST_SUB, @2, $1, $3); }
    | expr '*' expr    { $$ = binary(ps, AST_MUL, @2, $1, $3); }
    | expr '/' expr    { $$ = binary(ps, AST_DIV, @2, $1, $3); }
    | '-' expr %prec NEG
        {
            ast_expr *kids[1] = {$2};
            $$ = ast_node(ps->arena, ps->diags, AST_NEG, @1, kids, 1);
        }
    | TOK_IDENT '(' ')'
        {
            $$ = ast_node(ps->arena, ps->diags, AST_CALL, @1, NULL, 0);
            if ($$ && $$->kind == AST_CALL)
                $$->name = $1;
        }
    | TOK_IDENT '(' args ')'
        {
            $$ = $3 ? ast_node(ps->arena, ps->diags, AST_CALL, @1, $3->args, $3->nargs) : NULL;
            if ($$ && $$->kind == AST_CALL)
                $$->name = $1;
        }
    | TOK_IDENT
        {
            $$ = ast_leaf(ps->arena, AST_NAME, @1);
            if ($$)
                $$->name = $1;
        }
    | TOK_NUMBER
        {
            $$ = ast_leaf(ps->arena, AST_NUM, @1);
            if ($$)
                $$->num = $1;
        }
    | '(' expr ')' { $$ = $2; }
    ;

/* args -> expr { ',' expr }, gathered in a scratch node */
args
    : expr
        {
            $$ = ast_leaf(ps->arena, AST_CALL, @1);
            if ($$)
                ARENA_PUSH(ps->arena, $$->args, $$->nargs, $$->args_cap, $1);
        }
    | args ',' expr
        {
            $$ = $1;
            if ($$)
                ARENA_PUSH(ps->arena, $$->args, $$->nargs, $$->args_cap, $3);
        }
    ;

%%

#undef scanner

static void *parse_alloc(parse_state *ps, size_t size)
{
    void *p = malloc(size);
    if (!p)
        ps->arena->failed = 1;
    return p;
}

static void evt_yyerror(src_loc *loc, parse_state *ps, const char *msg)
{
    if (ps->arena->failed)
        return; /* out of memory: the module reports EVT_ERR_NO_MEMORY */
    if (strcmp(msg, "memory exhausted") == 0)
        diag_report(ps->diags, EVT_SEV_ERROR, *loc,
                    "the input is nested too deeply (more than %d open constructs)",
                    PARSE_MAX_STACK);
    else if (!ps->after_lex_error) /* else those were the error: `acc $ 1` is one, not two */
        diag_report(ps->diags, EVT_SEV_ERROR, *loc, "%s", msg);
}

static ast_stmt *new_stmt(parse_state *ps, ast_stmt_kind kind, src_loc loc, const char *name,
                          src_loc name_loc)
{
    ast_stmt *s = arena_alloc(ps->arena, sizeof *s);
    if (s) {
        s->kind = kind;
        s->loc = loc;
        s->name = name;
        s->name_loc = name_loc;
    }
    return s;
}

static evt_shape shape_of(parse_state *ps, const char *d0, src_loc l0, const char *d1, src_loc l1)
{
    if (!d1) {
        if (strcmp(d0, "M") == 0)
            return EVT_SHAPE_M;
        if (strcmp(d0, "N") == 0)
            return EVT_SHAPE_N;
    } else if (strcmp(d0, "M") == 0 && strcmp(d1, "N") == 0) {
        return EVT_SHAPE_MN;
    }
    (void)l1;
    diag_report(ps->diags, EVT_SEV_ERROR, l0, "a shape is [M, N], [M] or [N]");
    return EVT_SHAPE_MN;
}

static ast_expr *binary(parse_state *ps, ast_binop op, src_loc loc, ast_expr *l, ast_expr *r)
{
    ast_expr *kids[2] = {l, r};
    ast_expr *e = ast_node(ps->arena, ps->diags, AST_BINARY, loc, kids, 2);
    if (e && e->kind == AST_BINARY)
        e->op = op;
    return e;
}
