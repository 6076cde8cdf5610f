"""The CDR view of a loaded definition: what include/zcast/cdr.h's tables describe.

Each member gets a kind (primitive, string or message), a shape (one, array, sequence), declared
bounds, its entries in the bounds struct and, for reader/writer views, its flat slots (single nested
messages expanded in place).
"""
from rosidl_parser.definition import (AbstractNestedType, AbstractWString, Array, BasicType,
                                      BoundedSequence, BoundedString, NamespacedType,
                                      UnboundedString)

from defaults import declared_default
from loader import MsgError, nested_definition

KINDS = {  # IDL basic type -> (zcast_cdr_kind suffix, C type)
    'boolean': ('BOOL', 'bool'), 'octet': ('OCTET', 'uint8_t'), 'char': ('CHAR', 'char'),
    'int8': ('INT8', 'int8_t'), 'uint8': ('UINT8', 'uint8_t'), 'int16': ('INT16', 'int16_t'),
    'uint16': ('UINT16', 'uint16_t'), 'int32': ('INT32', 'int32_t'),
    'uint32': ('UINT32', 'uint32_t'), 'int64': ('INT64', 'int64_t'),
    'uint64': ('UINT64', 'uint64_t'), 'float': ('FLOAT32', 'float'),
    'double': ('FLOAT64', 'double'),
}
SIZES = {'BOOL': 1, 'OCTET': 1, 'CHAR': 1, 'INT8': 1, 'UINT8': 1, 'INT16': 2, 'UINT16': 2,
         'INT32': 4, 'UINT32': 4, 'INT64': 8, 'UINT64': 8, 'FLOAT32': 4, 'FLOAT64': 8}


def c_ident(type_name):
    return type_name.replace('/', '_')


class Field:
    def __init__(self, model, d, m):
        self.name = m.name
        t = m.type
        self.shape, self.count = 'ONE', 1
        if isinstance(t, AbstractNestedType):
            if isinstance(t, Array):
                self.shape, self.count = 'ARRAY', t.size
            else:
                self.shape = 'SEQUENCE'
                self.count = t.maximum_size if isinstance(t, BoundedSequence) else 0
            t = t.value_type
        self.string_bound, self.nested = 0, None
        line = d.member_lines.get(m.name, 0)
        if isinstance(t, BasicType):
            if t.typename not in KINDS:
                raise MsgError(d.msg_path, line, f'member {m.name}: type {t.typename} is not '
                               'supported by zcast (no wchar / long double)')
            self.kind, self.c_type = KINDS[t.typename]
        elif isinstance(t, AbstractWString):
            raise MsgError(d.msg_path, line, f'member {m.name}: wstring is not supported by zcast')
        elif isinstance(t, (BoundedString, UnboundedString)):
            self.kind, self.c_type = 'STRING', 'zcast_cdr_str'
            self.string_bound = t.maximum_size if isinstance(t, BoundedString) else 0
        elif isinstance(t, NamespacedType):
            self.kind = 'STRUCT'
            self.nested = model.of(nested_definition(model.loader, t))
            self.c_type = self.nested.ident
        else:
            raise MsgError(d.msg_path, line, f'member {m.name}: unsupported type {t!r}')
        # Entries in the bounds struct (include/zcast/cdr.h).
        seq = self.shape == 'SEQUENCE'
        if self.kind == 'STRING':
            self.n_bounds = 1 + seq
        elif self.kind == 'STRUCT':
            self.n_bounds = (seq + self.nested.n_bounds) if (seq or self.nested.n_bounds) else 0
        else:
            self.n_bounds = 1 if seq else 0
        self.default = declared_default(d, m, self)


class Type:
    def __init__(self, model, d):
        self.d = d
        self.name = d.type_name
        self.ident = c_ident(d.type_name)
        self.fields, self.n_bounds = [], 0
        for m in d.members:
            f = Field(model, d, m)
            f.bounds_index = self.n_bounds
            self.n_bounds += f.n_bounds
            self.fields.append(f)
        if self.n_bounds > 0xffff:  # zcast_cdr_field.bounds_index is 16 bits
            raise MsgError(d.msg_path, 0, f'{self.name} has more than 65535 bounds entries')
        self.flat = []  # (path, Field): single nested messages expanded in place
        for f in self.fields:
            if f.kind == 'STRUCT' and f.shape == 'ONE':
                self.flat += [([f.name] + p, g) for p, g in f.nested.flat]
            else:
                self.flat.append(([f.name], f))

    def nested_types(self):
        seen = []
        for f in self.fields:
            if f.nested and f.nested not in seen:
                seen.append(f.nested)
        return seen


class Model:
    def __init__(self, loader):
        self.loader = loader
        self.types = {}

    def of(self, d):
        if d.type_name not in self.types:
            self.types[d.type_name] = Type(self, d)
        return self.types[d.type_name]
