/* parse_state.h - what the scanner and the parser share during one parse. */
#ifndef EVT_GRAMMAR_PARSE_STATE_H
#define EVT_GRAMMAR_PARSE_STATE_H

#include "ast.h"

#include <setjmp.h>

enum {
    PARSE_MAX_IDENT = 1024, /* longer identifiers and numbers are refused */
    PARSE_MAX_STACK = 5000, /* bison stack depth: deeper nesting is refused */
    PARSE_FLEX_BLOCKS = 8   /* the scanner's blocks alive at once: its state, buffer stack, buffer */
};

typedef struct parse_state {
    arena *arena;
    diag_list *diags;
    ast_file *file;
    void *scanner;
    unsigned line, column; /* where the next token starts */
    size_t offset;
    src_loc comment_start; /* where the block comment being skipped began */
    int after_lex_error;   /* this token follows a lexical error: a syntax error here repeats it */
    int in_body;           /* between an epilogue's '{' and '}' */
    src_loc bad_start;     /* the run of bad bytes being skipped, reported when it ends */
    size_t bad_len;
    unsigned char bad_first;
    jmp_buf lex_abort;     /* the scanner's fatal-error exit */
    /* The scanner's blocks (evt_yyalloc): flex's fatal error, our longjmp,
     * can strand one it had not yet linked in (a buffer before the buffer
     * stack that would hold it), so ast_parse frees what
     * evt_yylex_destroy leaves. */
    void *flex_blocks[PARSE_FLEX_BLOCKS];
} parse_state;

#endif
