"""RIHS01 type hashes (REP-2016), computed the way ROS 2 (Jazzy) computes them.

The hash is sha256 over a JSON text of the type description: the type itself and every type it
references (directly or not), each as a type name and its fields with name, type id, capacity,
string capacity and nested type name. Constants and default values are not part of it; comments
neither. Referenced types are sorted by name. The JSON is written compactly with ', ' and ': ' as
separators and keys in declaration order, so byte for byte the same text as ROS 2 hashes.
"""
import hashlib
import json

from rosidl_parser.definition import (AbstractGenericString, AbstractNestedType, AbstractWString,
                                      Array, BasicType, BoundedSequence, BoundedString,
                                      BoundedWString, NamespacedType, UnboundedSequence)

from loader import nested_definition

# type_description_interfaces/msg/FieldType ids.
_BASIC_IDS = {
    'int8': 2, 'uint8': 3, 'int16': 4, 'uint16': 5, 'int32': 6, 'uint32': 7, 'int64': 8,
    'uint64': 9, 'float': 10, 'double': 11, 'long double': 12, 'char': 13, 'wchar': 14,
    'boolean': 15, 'octet': 16,
}
_NESTED = 1
_STRING, _WSTRING, _BOUNDED_STRING, _BOUNDED_WSTRING = 17, 18, 21, 22
_ARRAY_OFFSET, _BOUNDED_SEQUENCE_OFFSET, _UNBOUNDED_SEQUENCE_OFFSET = 48, 96, 144


def _element_id(t):
    if isinstance(t, BasicType):
        return _BASIC_IDS[t.typename]
    if isinstance(t, NamespacedType):
        return _NESTED
    if isinstance(t, BoundedString):
        return _BOUNDED_STRING
    if isinstance(t, BoundedWString):
        return _BOUNDED_WSTRING
    if isinstance(t, AbstractWString):
        return _WSTRING
    if isinstance(t, AbstractGenericString):
        return _STRING
    raise ValueError(f'no type id for {t!r}')


def field_type(t):
    """The FieldType dict of a member type."""
    capacity, offset, elem = 0, 0, t
    if isinstance(t, AbstractNestedType):
        elem = t.value_type
        if isinstance(t, Array):
            capacity, offset = t.size, _ARRAY_OFFSET
        elif isinstance(t, BoundedSequence):
            capacity, offset = t.maximum_size, _BOUNDED_SEQUENCE_OFFSET
        elif isinstance(t, UnboundedSequence):
            offset = _UNBOUNDED_SEQUENCE_OFFSET
    string_capacity = elem.maximum_size if isinstance(elem, (BoundedString, BoundedWString)) else 0
    nested = '/'.join(elem.namespaced_name()) if isinstance(elem, NamespacedType) else ''
    return {'type_id': _element_id(elem) + offset, 'capacity': capacity,
            'string_capacity': string_capacity, 'nested_type_name': nested}


def individual_description(d):
    return {'type_name': d.type_name,
            'fields': [{'name': m.name, 'type': field_type(m.type)} for m in d.members]}


def referenced(loader, d, acc=None):
    """All Definitions d references, directly or not (name -> Definition)."""
    acc = {} if acc is None else acc
    for m in d.members:
        t = m.type.value_type if isinstance(m.type, AbstractNestedType) else m.type
        if isinstance(t, NamespacedType):
            n = nested_definition(loader, t)
            if n.type_name not in acc:
                acc[n.type_name] = n
                referenced(loader, n, acc)
    return acc


def _json(doc):
    return json.dumps(doc, ensure_ascii=True, indent=None, separators=(', ', ': '),
                      sort_keys=False, allow_nan=False)


def hash_text(loader, d):
    """The exact text that is hashed."""
    refs = referenced(loader, d)
    doc = {'type_description': individual_description(d),
           'referenced_type_descriptions': [individual_description(refs[k]) for k in sorted(refs)]}
    return _json(doc)


def type_hash(loader, d):
    """The 32 bytes of the RIHS01 hash."""
    return hashlib.sha256(hash_text(loader, d).encode('utf-8')).digest()


def type_hash_str(loader, d):
    return 'RIHS01_' + type_hash(loader, d).hex()


# A service (REP-2011): hashed as a type whose fields are its request, response and event
# messages. The event message pkg/srv/Name_Event is built as ROS 2 builds it: the event info, then
# the request and the response each as a sequence of at most one.
_EVENT_INFO = 'service_msgs/msg/ServiceEventInfo'


def _nested_field(name, type_name, type_id=_NESTED, capacity=0):
    return {'name': name, 'type': {'type_id': type_id, 'capacity': capacity, 'string_capacity': 0,
                                   'nested_type_name': type_name}}


def event_description(s):
    one = _NESTED + _BOUNDED_SEQUENCE_OFFSET
    return {'type_name': f'{s.type_name}_Event',
            'fields': [_nested_field('info', _EVENT_INFO),
                       _nested_field('request', s.request.type_name, one, 1),
                       _nested_field('response', s.response.type_name, one, 1)]}


def service_hash_text(loader, s):
    """The exact text hashed for the service type s (a loader.ServiceDefinition)."""
    info = loader.types['service_msgs/ServiceEventInfo']
    refs = {d.type_name: individual_description(d) for d in (s.request, s.response, info)}
    for d in (s.request, s.response, info):
        refs.update({k: individual_description(v) for k, v in referenced(loader, d).items()})
    refs[f'{s.type_name}_Event'] = event_description(s)
    top = {'type_name': s.type_name,
           'fields': [_nested_field('request_message', s.request.type_name),
                      _nested_field('response_message', s.response.type_name),
                      _nested_field('event_message', f'{s.type_name}_Event')]}
    doc = {'type_description': top, 'referenced_type_descriptions': [refs[k] for k in sorted(refs)]}
    return _json(doc)


def service_hash(loader, s):
    return hashlib.sha256(service_hash_text(loader, s).encode('utf-8')).digest()


def service_hash_str(loader, s):
    return 'RIHS01_' + service_hash(loader, s).hex()
