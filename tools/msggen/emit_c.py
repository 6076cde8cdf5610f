"""C header of one message type: identity, plain struct, bounds, introspection table, reader and
writer views (inline, over include/zcast/cdr.h and include/zcast/typed.h)."""
from defaults import c_literal, constant_kind, defaults_block, init_function
from emit_cpp import cpp_section
from model import SIZES


# The C part's casts are C casts: a C++ user's stricter warnings stay quiet for it (not for the C++
# views at the end, which compile clean under them).
_CPP_QUIET = ['#ifdef __cplusplus', '#pragma GCC diagnostic push',
              *[f'#pragma GCC diagnostic ignored "{w}"'
                for w in ('-Wold-style-cast', '-Wconversion', '-Wsign-conversion', '-Wpedantic')],
              '#endif']


def _hash_bytes(h):
    return ', '.join(f'0x{b:02x}' for b in h)


def _struct_member(f):
    if f.shape == 'SEQUENCE':
        return f'zcast_cdr_seq {f.name};'
    if f.shape == 'ARRAY':
        return f'{f.c_type} {f.name}[{f.count}];'
    return f'{f.c_type} {f.name};'


def _bounds_member(f):
    seq = f.shape == 'SEQUENCE'
    if f.kind == 'STRING':
        return f'struct {{ uint32_t count, length; }} {f.name};' if seq else f'uint32_t {f.name};'
    if f.kind == 'STRUCT' and f.nested.n_bounds:
        nb = f'{f.nested.ident}_bounds'
        return f'struct {{ uint32_t count; {nb} elem; }} {f.name};' if seq else f'{nb} {f.name};'
    return f'uint32_t {f.name};'


def _flat_slots(t, base=0):
    """(path, field, absolute bounds index) of every flat slot of t."""
    out = []
    for f in t.fields:
        if f.kind == 'STRUCT' and f.shape == 'ONE':
            out += [([f.name] + p, g, b) for p, g, b in _flat_slots(f.nested, base + f.bounds_index)]
        else:
            out.append(([f.name], f, base + f.bounds_index))
    return out


def _reader(t, k, path, f):
    I, fn = t.ident, f'{t.ident}_{"_".join(path)}'
    at = f'v->r.base + v->off[{k}]'
    if f.kind == 'STRING':
        if f.shape == 'ONE':
            return (f'static inline zcast_cdr_str {fn}(const {I}_reader *v)\n{{\n'
                    f'\tzcast_cdr_str s = {{(const char *)({at}), v->len[{k}]}};\n\treturn s;\n}}\n')
        return (f'static inline uint32_t {fn}_count(const {I}_reader *v)\n{{\n'
                f'\treturn v->len[{k}];\n}}\n'
                f'static inline int {fn}_at(const {I}_reader *v, uint32_t i, zcast_cdr_str *s)\n{{\n'
                f'\treturn zcast_cdr_string_element(&v->r, v->off[{k}], v->len[{k}], i, &s->data, '
                f'&s->len);\n}}\n')
    if f.kind == 'STRUCT':
        N = f.nested.ident
        return (f'static inline uint32_t {fn}_count(const {I}_reader *v)\n{{\n'
                f'\treturn v->len[{k}];\n}}\n'
                f'static inline int {fn}_at(const {I}_reader *v, uint32_t i, {N}_reader *e)\n{{\n'
                f'\treturn zcast_cdr_element(&v->r, &{N}_TYPE, v->off[{k}], v->len[{k}], i, &e->r, '
                f'e->off, e->len);\n}}\n')
    if f.kind == 'BOOL':  # bytes another process could rewrite: never load them as C bool
        if f.shape == 'ONE':
            return (f'static inline bool {fn}(const {I}_reader *v)\n{{\n'
                    f'\treturn *({at}) != 0;\n}}\n')
        return (f'static inline const uint8_t *{fn}(const {I}_reader *v, uint32_t *n)\n{{\n'
                f'\t*n = v->len[{k}];\n\treturn {at};\n}}\n')
    if f.shape == 'ONE':
        return (f'static inline {f.c_type} {fn}(const {I}_reader *v)\n{{\n'
                f'\t{f.c_type} x;\n\tmemcpy(&x, {at}, sizeof x);\n\treturn x;\n}}\n')
    return (f'/* In place: the CDR origin is 8-byte aligned (zcast_cdr_read checks), so are the values. */\n'
            f'static inline const {f.c_type} *{fn}(const {I}_reader *v, uint32_t *n)\n{{\n'
            f'\t*n = v->len[{k}];\n\treturn (const {f.c_type} *)(const void *)({at});\n}}\n')


def _writer(t, k, path, f, babs):
    I, fn = t.ident, f'{t.ident}_w_{"_".join(path)}'
    W = f'{I}_writer'
    out = ''
    if f.shape == 'SEQUENCE':
        out += (f'static inline int {fn}_set_len({W} *w, uint32_t n)\n{{\n'
                f'\treturn zcast_cdr_set_count(&w->w, w->off[{k}], w->cap[{k}], n);\n}}\n')
    first = f'w->off[{k}] + 4' if f.shape == 'SEQUENCE' else f'w->off[{k}]'
    if f.kind == 'STRING':
        if f.shape == 'ONE':
            return (f'static inline char *{fn}_buf({W} *w, uint32_t *cap)\n{{\n'
                    f'\t*cap = w->cap[{k}];\n\treturn (char *)w->w.base + w->off[{k}] + 4;\n}}\n'
                    f'static inline int {fn}_set_len({W} *w, uint32_t n)\n{{\n'
                    f'\treturn zcast_cdr_set_strlen(&w->w, w->off[{k}], w->cap[{k}], n);\n}}\n'
                    f'static inline int {fn}_set({W} *w, const char *s)\n{{\n'
                    f'\treturn zcast_cdr_set_string(&w->w, w->off[{k}], w->cap[{k}], s);\n}}\n')
        sb = f'w->w.bounds[{babs + (f.shape == "SEQUENCE")}]'
        return out + (f'static inline int {fn}_set({W} *w, uint32_t i, const char *s)\n{{\n'
                      f'\tif (i >= w->cap[{k}])\n\t\treturn ZCAST_EINVAL;\n'
                      f'\treturn zcast_cdr_set_string(&w->w, zcast_cdr_string_slot({first}, {sb}, i), '
                      f'{sb}, s);\n}}\n')
    if f.kind == 'STRUCT':
        N = f.nested.ident
        eb = (f'w->w.bounds + {babs + (f.shape == "SEQUENCE")}' if f.nested.n_bounds else 'NULL')
        return out + (f'static inline int {fn}_at({W} *w, uint32_t i, {N}_writer *e)\n{{\n'
                      f'\tif (i >= w->cap[{k}])\n\t\treturn ZCAST_EINVAL;\n'
                      f'\te->w.base = w->w.base, e->w.bounds = {eb}, e->w.size = w->w.size;\n'
                      f'\tzcast_cdr_writer_element(&w->w, &{N}_TYPE, e->w.bounds, {first}, i, e->off, '
                      f'e->cap);\n\treturn 0;\n}}\n')
    if f.shape == 'ONE':
        return (f'static inline void {fn}_set({W} *w, {f.c_type} x)\n{{\n'
                f'\tmemcpy(w->w.base + w->off[{k}], &x, sizeof x);\n}}\n')
    if f.shape == 'ARRAY':
        return (f'static inline {f.c_type} *{fn}({W} *w)\n{{\n'
                f'\treturn ({f.c_type} *)(void *)(w->w.base + w->off[{k}]);\n}}\n')
    return out + (f'/* Room for *cap values, naturally aligned; set the count with {fn}_set_len. */\n'
                  f'static inline {f.c_type} *{fn}({W} *w, uint32_t *cap)\n{{\n'
                  f'\t*cap = w->cap[{k}];\n\treturn ({f.c_type} *)(void *)(w->w.base + '
                  f'zcast_cdr_align_(w->off[{k}] + 4, {SIZES[f.kind]}));\n}}\n')


def header(t, type_hash, hash_str, msg_rel):
    I = t.ident
    guard = f'ZCAST_MSG_{I.upper()}_H'
    o = [f'/* Generated by zcast-msggen from {msg_rel}: do not edit. API: docs/TYPED.md. */',
         f'#ifndef {guard}', f'#define {guard}', '', *_CPP_QUIET, '#include <stddef.h>',
         '#include <string.h>', '', '#include <zcast/cdr.h>', '#include <zcast/typed.h>']
    for n in t.nested_types():
        o.append(f'#include "{n.name.replace("/msg/", "/msg/")}.h"')
    o += ['', f'#define {I}_TYPE_NAME "{t.name}"', f'#define {I}_TYPE_HASH_STR "{hash_str}"',
          f'static const uint8_t {I}_TYPE_HASH[ZCAST_TYPE_HASH_SIZE] = {{{_hash_bytes(type_hash)}}};']
    for c in t.d.constants:
        o.append(f'#define {I}_{c.name} {c_literal(constant_kind(c), c.value)}')
    o += ['', f'/* Plain C struct (copy path: zcast_cdr_serialize / zcast_cdr_deserialize). */',
          f'typedef struct {I} {{']
    o += [f'\t{_struct_member(f)}' for f in t.fields]
    o += [f'}} {I};', '']
    if t.n_bounds:
        o += [f'/* Bounds: the most bytes per string, elements per sequence (include/zcast/cdr.h). */',
              f'typedef struct {I}_bounds {{']
        o += [f'\t{_bounds_member(f)}' for f in t.fields if f.n_bounds]
        o += [f'}} {I}_bounds;',
              '#ifdef __cplusplus /* C++ (zcast.hpp users) has no _Static_assert */',
              f'static_assert(sizeof({I}_bounds) == {4 * t.n_bounds}, "bounds are uint32 entries");',
              '#else',
              f'_Static_assert(sizeof({I}_bounds) == {4 * t.n_bounds}, "bounds are uint32 entries");',
              '#endif',
              '']
    defaults, default_entry = defaults_block(t)
    o += defaults
    o.append(f'static const zcast_cdr_field {I}_FIELDS_[] = {{')
    for f in t.fields:
        nested = f'&{f.nested.ident}_TYPE' if f.nested else 'NULL'
        o.append(f'\t{{"{f.name}", ZCAST_CDR_{f.kind}, ZCAST_CDR_{f.shape}, {f.bounds_index}, '
                 f'{f.count}, {f.string_bound}, {nested}, offsetof({I}, {f.name}), '
                 f'{default_entry[f.name]}}},')
    slots = _flat_slots(t)
    o += ['};', f'static const zcast_cdr_type {I}_TYPE = {{{I}_TYPE_NAME, {I}_TYPE_HASH, {I}_FIELDS_, '
          f'{len(t.fields)}, {t.n_bounds}, {len(slots)}, sizeof({I})}};', '',
          f'/* Reader view: zcast_cdr_read validated every member. */',
          f'typedef struct {I}_reader {{', '\tzcast_cdr_reader r;',
          f'\tuint32_t off[{len(slots)}], len[{len(slots)}];', f'}} {I}_reader;',
          f'static inline int {I}_read({I}_reader *v, const void *cdr, size_t size)', '{',
          f'\treturn zcast_cdr_read(&{I}_TYPE, cdr, size, &v->r, v->off, v->len);', '}',
          f'static inline int {I}_read_msg({I}_reader *v, zcast_msg *m)', '{',
          f'\treturn zcast_typed_read(&{I}_TYPE, m, &v->r, v->off, v->len);', '}',
          init_function(t)]
    for k, (path, f, _) in enumerate(slots):
        o.append(_reader(t, k, path, f))
    o += [f'/* Writer view: a loan laid out at its bounds. */', f'typedef struct {I}_writer {{',
          '\tzcast_cdr_writer w;', f'\tuint32_t off[{len(slots)}], cap[{len(slots)}];',
          f'}} {I}_writer;']
    bt = f'const {I}_bounds *' if t.n_bounds else 'const void *'
    o += [f'static inline int {I}_pub_open(const char *topic, {bt}bounds, const zcast_pub_opts *o,',
          f'\t\t\t\t zcast_typed_pub **p)', '{',
          f'\treturn zcast_typed_pub_open(topic, &{I}_TYPE, bounds, o, p);', '}',
          f'/* bounds NULL: the publisher\'s; otherwise each at most the publisher\'s. */',
          f'static inline int {I}_loan(zcast_typed_pub *p, {bt}bounds, zcast_msg **m, {I}_writer *w)',
          '{', f'\treturn zcast_typed_loan(p, bounds, m, &w->w, w->off, w->cap);', '}',
          f'static inline int {I}_publish(zcast_typed_pub *p, zcast_msg *m, {I}_writer *w)', '{',
          f'\treturn zcast_typed_publish(p, m, &w->w);', '}']
    for k, (path, f, babs) in enumerate(slots):
        o.append(_writer(t, k, path, f, babs))
    o += ['#ifdef __cplusplus', '#pragma GCC diagnostic pop', '#endif', cpp_section(t), '#endif', '']
    return '\n'.join(o)
