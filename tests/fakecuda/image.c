/*
 * image.c - what the fake driver reads of a module image: its target and,
 * for each kernel, the parameters' sizes, the block bound and the static
 * shared memory, so that a launch can copy exactly the bytes each
 * parameter has and be refused where a driver would refuse it.
 *
 * A cubin is an ELF file (EM_CUDA): kernels are its global functions, and
 * each has a .nv.info.<name> section of attributes (4-byte headers, format
 * and attribute, then a 16-bit value or a size and that many bytes):
 * KPARAM_INFO (0x17) gives a parameter's ordinal and, in the top 14 bits
 * of its last word, its size; MAX_THREADS (0x05) the __launch_bounds__.
 * The SM is in e_flags (bits 8-15 from ELF ABI version 8 on, CUDA 12.8;
 * the low byte before).  PTX is text: `.target sm_90a`, and each `.entry
 * name(.param ... , ...)` with an optional `.maxntid x, y, z`.
 */
#define _GNU_SOURCE
#include "fakecuda_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- cubins --------------------------------------------------------------- */

typedef struct elf_section {
    uint32_t name, type;
    uint64_t offset, size;
    uint32_t link;
} elf_section;

static elf_section section(const unsigned char *b, uint64_t shoff, unsigned i)
{
    const unsigned char *s = b + shoff + (uint64_t)i * 64;
    return (elf_section){rd32(s), rd32(s + 4), rd64(s + 24), rd64(s + 32), rd32(s + 40)};
}

/* The section named prefix + name (name_len bytes); 0 if none. */
static int find_section(const unsigned char *b, uint64_t shoff, unsigned n, const char *names,
                        const char *prefix, const char *name, size_t name_len, elf_section *out)
{
    const size_t plen = strlen(prefix);
    for (unsigned i = 0; i < n; i++) {
        elf_section s = section(b, shoff, i);
        const char *sn = names + s.name;
        if (strncmp(sn, prefix, plen) == 0 && strncmp(sn + plen, name, name_len) == 0 &&
            sn[plen + name_len] == '\0') {
            *out = s;
            return 1;
        }
    }
    return 0;
}

/* Reads a kernel's .nv.info attributes into e. */
static void read_info(const unsigned char *p, uint64_t size, fk_entry *e)
{
    uint64_t at = 0;
    while (at + 4 <= size) {
        const unsigned fmt = p[at], attr = p[at + 1];
        uint64_t len = 0;
        if (fmt == 4) /* EIFMT_SVAL: a size, then that many bytes */
            len = rd16(p + at + 2);
        else if (fmt < 1 || fmt > 3)
            return; /* a format this reader does not know: stop, as unknown */
        const unsigned char *v = p + at + 4;
        if (at + 4 + len > size)
            return;
        if (fmt == 4 && attr == 0x17 && len >= 12) { /* KPARAM_INFO */
            const unsigned ordinal = rd16(v + 4);
            const size_t bytes = rd32(v + 8) >> 18;
            if (ordinal < FAKECUDA_MAX_PARAMS) {
                if ((int)ordinal >= e->nparams)
                    e->nparams = (int)ordinal + 1;
                e->param_size[ordinal] = bytes;
            }
        } else if (fmt == 4 && attr == 0x05 && len >= 12) { /* MAX_THREADS */
            const uint64_t t = (uint64_t)rd32(v) * rd32(v + 4) * rd32(v + 8);
            e->max_threads = t > 0 && t <= 4096 ? (int)t : 0;
        }
        at += 4 + len;
    }
}

static int parse_cubin(const unsigned char *b, fk_image *out)
{
    if (b[4] != 2 || b[5] != 1 || rd16(b + 0x12) != 190) /* ELF64, little-endian, EM_CUDA */
        return 0;
    const unsigned abi = b[8];
    const uint32_t flags = rd32(b + 0x30);
    out->sm = (int)(abi >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
    const uint64_t shoff = rd64(b + 0x28);
    const unsigned shentsize = rd16(b + 0x3a), shnum = rd16(b + 0x3c), shstrndx = rd16(b + 0x3e);
    if (shentsize != 64 || shnum == 0 || shstrndx >= shnum || out->sm < 10)
        return 0;
    const char *names = (const char *)b + section(b, shoff, shstrndx).offset;
    elf_section symtab = {0};
    for (unsigned i = 0; i < shnum && !symtab.type; i++) {
        elf_section s = section(b, shoff, i);
        if (s.type == 2) /* SHT_SYMTAB */
            symtab = s;
    }
    if (!symtab.type || symtab.link >= shnum)
        return 0;
    const char *strtab = (const char *)b + section(b, shoff, symtab.link).offset;
    const uint64_t nsyms = symtab.size / 24;
    out->entries = calloc(nsyms ? nsyms : 1, sizeof *out->entries);
    if (!out->entries)
        return 0;
    for (uint64_t i = 0; i < nsyms; i++) {
        const unsigned char *sym = b + symtab.offset + i * 24;
        const unsigned info = sym[4];
        if ((info & 0xf) != 2 || (info >> 4) != 1) /* STT_FUNC, STB_GLOBAL: a kernel */
            continue;
        fk_entry *e = &out->entries[out->nentries++];
        e->name = strtab + rd32(sym);
        e->name_len = strlen(e->name);
        elf_section s;
        if (find_section(b, shoff, shnum, names, ".nv.info.", e->name, e->name_len, &s))
            read_info(b + s.offset, s.size, e);
        if (find_section(b, shoff, shnum, names, ".nv.shared.", e->name, e->name_len, &s))
            e->static_smem = s.size <= 1 << 20 ? (int)s.size : 1 << 20;
    }
    return 1;
}

/* ---- PTX ------------------------------------------------------------------ */

static const char *skip_space(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

static size_t token_len(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '$' || p[n] == '%')
        n++;
    return n;
}

/* Bytes of a PTX scalar type (".u64"); 0 for anything else. */
static size_t ptx_type_size(const char *t, size_t n)
{
    if (n < 3 || t[0] != '.' || !strchr("bsuf", t[1]))
        return 0;
    const long bits = strtol(t + 2, NULL, 10);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (size_t)bits / 8 : 0;
}

/* One `.param [.align N] .TYPE [.ptr ...] name[[N]]`, from p; its size in
 * *size, and where it ends; NULL if it is not one. */
static const char *ptx_param(const char *p, size_t *size)
{
    p = skip_space(p);
    if (strncmp(p, ".param", 6) != 0)
        return NULL;
    p += 6;
    size_t elem = 0;
    for (;;) {
        p = skip_space(p);
        const size_t n = token_len(p);
        if (!n)
            return NULL;
        if (p[0] != '.') { /* the name, then an optional [N] */
            p += n;
            size_t count = 1;
            if (*p == '[') {
                char *end;
                count = strtoul(p + 1, &end, 10);
                if (*end != ']')
                    return NULL;
                p = end + 1;
            }
            *size = elem * count;
            return elem ? p : NULL;
        }
        if (strncmp(p, ".align", 6) == 0 && n == 6) {
            p = skip_space(p + n);
            p += token_len(p);
            continue;
        }
        if (!elem)
            elem = ptx_type_size(p, n); /* the first type; .ptr .global and the like follow it */
        p += n;
    }
}

static int parse_ptx(const char *text, fk_image *out)
{
    const char *target = strstr(text, ".target");
    if (!strstr(text, ".version") || !target)
        return 0;
    target = skip_space(target + 7);
    if (strncmp(target, "sm_", 3) != 0)
        return 0;
    char *end;
    out->sm = (int)strtol(target + 3, &end, 10);
    out->arch_specific = *end == 'a';
    out->ptx = 1;
    size_t cap = 0;
    for (const char *p = text; (p = strstr(p, ".entry")) != NULL;) {
        p = skip_space(p + 6);
        const size_t n = token_len(p);
        if (!n)
            return 0;
        if ((size_t)out->nentries == cap) {
            cap = cap ? 2 * cap : 8;
            fk_entry *grown = realloc(out->entries, cap * sizeof *grown);
            if (!grown)
                return 0;
            out->entries = grown;
        }
        fk_entry *e = &out->entries[out->nentries++];
        memset(e, 0, sizeof *e);
        e->name = p;
        e->name_len = n;
        p = skip_space(p + n);
        if (*p == '(') {
            p = skip_space(p + 1);
            while (*p != ')') {
                size_t size;
                if (!(p = ptx_param(p, &size)) || e->nparams == FAKECUDA_MAX_PARAMS)
                    return 0;
                e->param_size[e->nparams++] = size;
                p = skip_space(p);
                if (*p == ',')
                    p++;
                else if (*p != ')')
                    return 0;
            }
            p++;
        }
        /* performance directives up to the body */
        const char *body = strchr(p, '{');
        const char *bound = strstr(p, ".maxntid");
        if (bound && (!body || bound < body)) {
            long x = 0, y = 1, z = 1;
            char *q;
            x = strtol(bound + 8, &q, 10);
            if (*(q = (char *)skip_space(q)) == ',')
                y = strtol(q + 1, &q, 10);
            if (*(q = (char *)skip_space(q)) == ',')
                z = strtol(q + 1, &q, 10);
            e->max_threads = x > 0 && y > 0 && z > 0 && x * y * z <= 4096 ? (int)(x * y * z) : 0;
        }
        const char *cl = strstr(p, ".reqnctapercluster");
        if (cl && (!body || cl < body)) {
            char *q;
            const long x = strtol(cl + 18, &q, 10);
            e->cluster = x > 0 && x <= 16 ? (int)x : 0; /* the x dimension: evt's clusters are 1-D */
        }
    }
    return 1;
}

int fk_parse_image(const void *image, fk_image *out)
{
    memset(out, 0, sizeof *out);
    const unsigned char *b = image;
    int ok = memcmp(b, "\x7f" "ELF", 4) == 0 ? parse_cubin(b, out) : parse_ptx(image, out);
    if (!ok)
        fk_free_image(out);
    return ok;
}

void fk_free_image(fk_image *img)
{
    free(img->entries);
    img->entries = NULL;
    img->nentries = 0;
}
