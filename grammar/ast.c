/* ast.c - AST construction and the parse driver (scanner + parser over a buffer). */
#include "parse_state.h"
#include "parser.h"

#define YYSTYPE EVT_YYSTYPE
#define YYLTYPE EVT_YYLTYPE
#include "lexer.h"

#include <stdlib.h>
#include <string.h>

ast_expr *ast_leaf(arena *a, ast_expr_kind kind, src_loc loc)
{
    ast_expr *e = arena_alloc(a, sizeof *e);
    if (e) {
        e->kind = kind;
        e->loc = loc;
        e->depth = 1;
    }
    return e;
}

ast_expr *ast_node(arena *a, diag_list *dl, ast_expr_kind kind, src_loc loc, ast_expr **kids,
                   size_t nkids)
{
    int depth = 0;
    for (size_t i = 0; i < nkids; i++) {
        if (!kids[i] || kids[i]->kind == AST_ERROR)
            return ast_leaf(a, AST_ERROR, loc);
        if (kids[i]->depth > depth)
            depth = kids[i]->depth;
    }
    if (depth >= AST_MAX_DEPTH) {
        diag_report(dl, EVT_SEV_ERROR, loc, "expression is nested more than %d levels deep",
                    AST_MAX_DEPTH);
        return ast_leaf(a, AST_ERROR, loc);
    }
    ast_expr *e = ast_leaf(a, kind, loc);
    if (!e)
        return NULL;
    e->depth = depth + 1;
    if (nkids) {
        e->args = arena_alloc(a, nkids * sizeof *e->args);
        if (!e->args)
            return NULL;
        for (size_t i = 0; i < nkids; i++)
            e->args[i] = kids[i];
    }
    e->nargs = e->args_cap = nkids;
    return e;
}

void ast_parse(arena *a, diag_list *dl, const char *source, size_t len, ast_file *file)
{
    parse_state ps = {.arena = a, .diags = dl, .file = file, .line = 1, .column = 1};
    yyscan_t scanner;
    if (evt_yylex_init_extra(&ps, &scanner) != 0) {
        a->failed = 1; /* the module reports EVT_ERR_NO_MEMORY */
        return;
    }
    ps.scanner = scanner;
    /* The scanner's copy of the source is ours, not yy_scan_bytes': when
     * memory runs out inside it, flex's fatal error (our longjmp) would
     * lose the copy it had just made. */
    char *copy = malloc(len + 2);
    if (!copy) {
        a->failed = 1;
        evt_yylex_destroy(scanner);
        return;
    }
    memcpy(copy, source, len);
    copy[len] = copy[len + 1] = '\0'; /* flex's two end-of-buffer bytes */
    if (setjmp(ps.lex_abort) == 0) {
        evt_yy_scan_buffer(copy, len + 2, scanner);
        evt_yyparse(&ps);
    }
    evt_yylex_destroy(scanner);
    for (int i = 0; i < PARSE_FLEX_BLOCKS; i++)
        free(ps.flex_blocks[i]); /* stranded by a fatal error, if any */
    free(copy);
}
