/* ast.h - the syntax tree of a .evt file, as the parser builds it. */
#ifndef EVT_GRAMMAR_AST_H
#define EVT_GRAMMAR_AST_H

#include "../support/arena.h"
#include "../support/diag.h"

#include <evt/evt.h>

/* Deeper expressions are refused, so that every walk over the AST may recurse. */
enum { AST_MAX_DEPTH = 1000 };

typedef enum ast_expr_kind {
    AST_NUM,    /* a number literal: num */
    AST_NAME,   /* a use of a name: name */
    AST_NEG,    /* -args[0] */
    AST_BINARY, /* args[0] op args[1] */
    AST_SELECT, /* args[0] ? args[1] : args[2] */
    AST_CALL,   /* name(args...) */
    AST_ERROR   /* a part already diagnosed; never reported again */
} ast_expr_kind;

typedef enum ast_binop {
    AST_ADD, /* + */
    AST_SUB, /* - */
    AST_MUL, /* * */
    AST_DIV, /* / */
    AST_LT,  /* < */
    AST_LE,  /* <= */
    AST_GT,  /* > */
    AST_GE,  /* >= */
    AST_EQ,  /* == */
    AST_NE   /* != */
} ast_binop;

typedef struct ast_expr ast_expr;
struct ast_expr {
    ast_expr_kind kind;
    src_loc loc;   /* the operator, the name, or the literal */
    int depth;     /* 1 for a leaf */
    ast_binop op;  /* AST_BINARY */
    const char *name; /* AST_NAME, AST_CALL */
    float num;     /* AST_NUM */
    ast_expr **args;
    size_t nargs, args_cap;
};

typedef enum ast_stmt_kind {
    AST_IN,    /* in NAME : type */
    AST_PARAM, /* param NAME : ELEM [= number] */
    AST_LET,   /* let NAME = expr */
    AST_OUT    /* out NAME : type = expr */
} ast_stmt_kind;

typedef struct ast_stmt {
    ast_stmt_kind kind;
    src_loc loc;      /* the keyword */
    const char *name;
    src_loc name_loc;
    evt_elem elem;
    evt_shape shape;
    int has_default;
    float default_value;
    ast_expr *expr;   /* AST_LET, AST_OUT */
    int poisoned;     /* a syntax error ate the rest: define the name, check nothing */
} ast_stmt;

typedef struct ast_epilogue {
    const char *name;
    src_loc loc;
    ast_stmt **stmts;
    size_t nstmts, stmts_cap;
    size_t syntax_errors; /* errors reported while parsing it; what they lost is unknown */
} ast_epilogue;

typedef struct ast_operand {
    const char *name;
    src_loc loc;
    evt_elem elem;
    const char *layout; /* NULL when none was written */
    src_loc layout_loc;
} ast_operand;

typedef struct ast_kernel {
    const char *name;
    src_loc loc;
    const char *mainloop;
    src_loc mainloop_loc;
    ast_operand *operands;
    size_t noperands, operands_cap;
    const char *epilogue;
    src_loc epilogue_loc;
} ast_kernel;

typedef struct ast_file {
    ast_epilogue **epilogues;
    size_t nepilogues, epilogues_cap;
    ast_kernel **kernels;
    size_t nkernels, kernels_cap;
} ast_file;

/* Parses source[0..len) into *file; diagnostics go to dl.  All memory in a. */
void ast_parse(arena *a, diag_list *dl, const char *source, size_t len, ast_file *file);

/* Constructors used by the parser; each returns NULL when memory is exhausted. */
ast_expr *ast_leaf(arena *a, ast_expr_kind kind, src_loc loc);
/* A node over children; refuses (reports once, returns AST_ERROR) past AST_MAX_DEPTH. */
ast_expr *ast_node(arena *a, diag_list *dl, ast_expr_kind kind, src_loc loc,
                   ast_expr **kids, size_t nkids);

#endif
