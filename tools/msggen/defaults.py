"""Declared values in C: member defaults (`float64 w 1`) and constants as C literals that compile
warning-free at every value of their type (INT64_MIN and UINT64_MAX included)."""
import ast

from loader import MsgError


def declared_default(d, m, field):
    """The member's declared default as a list of values (one per element), or None."""
    if not m.has_annotation('default'):
        return None
    v = m.get_annotation_value('default')['value']
    if field.shape == 'ONE':
        return [v]
    try:  # arrays and sequences: rosidl gives the tuple's text, "(1, 2, 3)"
        vals = ast.literal_eval(v) if isinstance(v, str) else v
    except (ValueError, SyntaxError) as e:
        raise MsgError(d.msg_path, d.member_lines.get(m.name, 0),
                       f'member {m.name}: default {v!r}: {e}')
    return list(vals) if isinstance(vals, (tuple, list)) else [vals]


def c_string(s):
    """A C string literal of s's UTF-8 bytes (octal escapes, so no byte merges with the next)."""
    out = []
    for b in s.encode('utf-8'):
        c = chr(b)
        out.append(c if 0x20 <= b < 0x7f and c not in '"\\?' else f'\\{b:03o}')
    return '"' + ''.join(out) + '"'


def c_literal(kind, v):
    """v as a C literal of kind ('INT64', 'FLOAT32', 'BOOL', ...; 'STRING')."""
    if kind == 'STRING':
        return c_string(v)
    if kind == 'BOOL' or isinstance(v, bool):
        return 'true' if v else 'false'
    if kind in ('FLOAT32', 'FLOAT64'):
        r = repr(float(v))
        if r in ('inf', '-inf', 'nan'):
            r = {'inf': '(1.0 / 0.0)', '-inf': '(-1.0 / 0.0)', 'nan': '(0.0 / 0.0)'}[r]
        return r + 'f' if kind == 'FLOAT32' and r[0] != '(' else r
    v = int(v)
    if kind == 'INT64':  # -9223372036854775808 is unary minus on a constant too big for int64
        return '(-INT64_C(9223372036854775807) - 1)' if v == -2**63 else f'INT64_C({v})'
    if kind == 'UINT64':
        return f'UINT64_C({v})'
    if kind == 'INT32' and v == -2**31:
        return '(-2147483647 - 1)'
    return str(v)


def constant_kind(c):
    """zcast_cdr_kind suffix of a constant's type."""
    from model import KINDS
    name = getattr(c.type, 'typename', None)
    return KINDS[name][0] if name in KINDS else 'STRING'


def defaults_block(t):
    """C arrays of t's declared member defaults (before its field table), and each field's
    (pointer, count) entry for the table."""
    lines, entry = [], {}
    for f in t.fields:
        if f.default is None or f.kind == 'STRUCT':
            entry[f.name] = 'NULL, 0'
            continue
        name = f'{t.ident}_DEFAULT_{f.name}_'
        if f.kind == 'STRING':
            vals = ', '.join(f'{{{c_string(v)}, {len(v.encode("utf-8"))}}}' for v in f.default)
            lines.append(f'static const zcast_cdr_str {name}[] = {{{vals}}};')
        else:
            ctype = 'uint8_t' if f.kind == 'BOOL' else f.c_type
            vals = ', '.join(c_literal(f.kind, v) for v in f.default)
            lines.append(f'static const {ctype} {name}[] = {{{vals}}};')
        entry[f.name] = f'{name}, {len(f.default)}'
    return lines, entry


def init_function(t):
    I = t.ident
    return (f'/* Every member at its declared default (zero where none is declared); default sequences\n'
            f' * point at read-only data of the type: replace them, do not write into them. */\n'
            f'static inline void {I}_init({I} *m)\n{{\n\tzcast_cdr_init(&{I}_TYPE, m);\n}}\n')
