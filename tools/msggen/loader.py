"""Load ROS 2 .msg definitions with ROS 2's own parsers (Debian python3-rosidl).

A .msg file goes through rosidl_adapter (.msg -> .idl, the text ROS 2 generates) and the .idl through
rosidl_parser, so what we accept and how we read it is exactly what ROS 2 does. Errors carry the
.msg file and line.
"""
import contextlib
import io
import pathlib
import tempfile

from rosidl_adapter.parser import parse_message_string, parse_service_string
from rosidl_adapter.resource import expand_template
from rosidl_parser.definition import (AbstractNestedType, IdlLocator, Message, NamespacedType,
                                      Service)
from rosidl_parser.parser import parse_idl_file


class MsgError(Exception):
    """An invalid definition: str() is 'file:line: message'."""

    def __init__(self, path, line, message):
        super().__init__(f'{path}:{line}: {message}' if line else f'{path}: {message}')


class Definition:
    """One message type: its parsed IDL message, .msg path, .idl text and member lines. The request
    and response of a service are messages of kind 'srv' (pkg/srv/Name_Request); their msg_path is
    the .srv file."""

    def __init__(self, pkg, name, msg_path, idl_text, message, member_lines, kind='msg'):
        self.pkg, self.name, self.kind = pkg, name, kind
        self.part_text = None  # a service part's lines of the .srv file
        self.msg_path, self.idl_text = msg_path, idl_text
        self.message = message            # rosidl_parser.definition.Message
        self.member_lines = member_lines  # member name -> line in the .msg file

    @property
    def type_name(self):
        return f'{self.pkg}/{self.kind}/{self.name}'

    @property
    def source_text(self):
        """The definition's own text (.msg file; a service's request or response part)."""
        if self.part_text is not None:
            return self.part_text
        return self.msg_path.read_text(encoding='utf-8')

    @property
    def rel_path(self):
        """pkg/msg/Name.msg, or the service's pkg/srv/Name.srv."""
        return f'{self.pkg}/{self.kind}/{self.msg_path.name}'

    @property
    def members(self):
        return self.message.structure.members

    @property
    def constants(self):
        return self.message.constants


def _to_idl(pkg, name, text, rel_input, out_file):
    """rosidl_adapter's .msg -> .idl step (its msg.idl.em template, as convert_msg_to_idl does it,
    without that function's progress output)."""
    msg = parse_message_string(pkg, name, text)
    expand_template('msg.idl.em', {'pkg_name': pkg, 'relative_input_file': rel_input, 'msg': msg},
                    out_file, encoding='iso-8859-1')


def _parse(pkg, name, text, parse=parse_message_string):
    """rosidl_adapter's .msg (or .srv) parser; it also prints what it raises, which we report
    ourselves."""
    with contextlib.redirect_stderr(io.StringIO()):
        return parse(pkg, name, text)


def _error_line(pkg, name, lines, parse=parse_message_string):
    """Line of the first error: the shortest prefix of the file that the adapter rejects (a .srv
    prefix is completed with a separator when it has none yet)."""
    for n in range(1, len(lines) + 1):
        text = '\n'.join(lines[:n])
        if parse is parse_service_string and SRV_SEPARATOR not in lines[:n]:
            text += '\n' + SRV_SEPARATOR
        try:
            _parse(pkg, name, text, parse)
        except Exception:  # noqa: BLE001 - any rejection marks the line
            return n
    return 0


def _member_lines(pkg, name, lines, first=1):
    """Line where each field is declared (a field appears when its line joins the prefix); lines
    start at line `first` of the file."""
    result, seen = {}, 0
    for n in range(1, len(lines) + 1):
        spec = _parse(pkg, name, '\n'.join(lines[:n]))
        if len(spec.fields) > seen:
            result[spec.fields[-1].name] = n + first - 1
            seen = len(spec.fields)
    return result


SRV_SEPARATOR = '---'


class ServiceDefinition:
    """One service type: its .srv path and the request and response Definitions."""

    def __init__(self, pkg, name, srv_path, request, response):
        self.pkg, self.name, self.srv_path = pkg, name, srv_path
        self.request, self.response = request, response

    @property
    def type_name(self):
        return f'{self.pkg}/srv/{self.name}'


# The message types a service's event message (pkg/srv/Name_Event) uses besides its request and
# response; zcast ships them (msg/service_msgs, msg/builtin_interfaces).
EVENT_INFO_TYPES = ('service_msgs/ServiceEventInfo', 'builtin_interfaces/Time')


class Loader:
    """Finds <root>/<pkg>/msg/<Name>.msg in the search roots, loads it and everything it uses."""

    def __init__(self, roots, idl_dir=None):
        self.roots = [pathlib.Path(r).resolve() for r in roots]
        self._tmp = None
        if idl_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix='zcast-msggen-')
            idl_dir = self._tmp.name
        self.idl_dir = pathlib.Path(idl_dir).resolve()
        self.types = {}  # 'pkg/Name' (messages), 'pkg/srv/Name_Request' ... -> Definition
        self.services = {}  # 'pkg/srv/Name' -> ServiceDefinition
        self._loading = set()

    def find(self, pkg, name):
        for root in self.roots:
            p = root / pkg / 'msg' / f'{name}.msg'
            if p.is_file():
                return root, p
        return None, None

    def _file_root(self, path, kind):
        """(root, pkg, Name) of <root>/<pkg>/<kind>/<Name>.<kind>; the root joins the roots."""
        path = pathlib.Path(path).resolve()
        if path.suffix != f'.{kind}' or path.parent.name != kind:
            raise MsgError(path, 0, f'expected a file <package>/{kind}/<Name>.{kind}')
        root = path.parent.parent.parent
        if root not in self.roots:
            self.roots.append(root)
        return root, path.parent.parent.name, path.stem

    def load_file(self, path):
        """Loads the .msg file at path (which must be <root>/<pkg>/msg/<Name>.msg)."""
        root, pkg, name = self._file_root(path, 'msg')
        return self.load(pkg, name, root)

    def load(self, pkg, name, root=None, used_at=None):
        key = f'{pkg}/{name}'
        if key in self.types:
            return self.types[key]
        if key in self._loading:
            where = used_at or ('<command line>', 0)
            raise MsgError(where[0], where[1], f'{pkg}/msg/{name} contains itself')
        if root is None:
            root, path = self.find(pkg, name)
        else:
            path = pathlib.Path(root) / pkg / 'msg' / f'{name}.msg'
        if path is None or not path.is_file():
            where = used_at or ('<command line>', 0)
            raise MsgError(where[0], where[1], f'message type {pkg}/msg/{name} not found '
                           f'(looked for {pkg}/msg/{name}.msg in {", ".join(map(str, self.roots))})')
        text = path.read_text(encoding='utf-8')
        lines = text.split('\n')
        try:
            _parse(pkg, name, text)
        except Exception as e:  # noqa: BLE001 - the adapter raises several kinds
            raise MsgError(path, _error_line(pkg, name, lines), str(e) or type(e).__name__) from None
        out_dir = self.idl_dir / pkg / 'msg'
        out_dir.mkdir(parents=True, exist_ok=True)
        idl_path = out_dir / f'{name}.idl'
        _to_idl(pkg, name, text, f'msg/{name}.msg', idl_path)
        idl = parse_idl_file(IdlLocator(self.idl_dir, idl_path.relative_to(self.idl_dir)))
        messages = idl.content.get_elements_of_type(Message)
        if len(messages) != 1:
            raise MsgError(path, 0, 'the generated IDL holds no single message')
        d = Definition(pkg, name, path, idl_path.read_text(encoding='iso-8859-1'), messages[0],
                       _member_lines(pkg, name, lines))
        self._loading.add(key)
        self._load_nested(d)
        self._loading.discard(key)
        self.types[key] = d
        return d

    def _load_nested(self, d):
        """Loads every message type d's members use."""
        for m in d.members:
            t = m.type.value_type if isinstance(m.type, AbstractNestedType) else m.type
            if isinstance(t, NamespacedType):
                if len(t.namespaces) != 2 or t.namespaces[1] != 'msg':
                    raise MsgError(d.msg_path, d.member_lines.get(m.name, 0),
                                   f'unsupported type {"/".join(t.namespaced_name())}')
                self.load(t.namespaces[0], t.name,
                          used_at=(d.msg_path, d.member_lines.get(m.name, 0)))

    def _add_shipped_root(self):
        """The event types come from zcast's own definitions when no given root has them."""
        if self.find('service_msgs', 'ServiceEventInfo')[0]:
            return
        here = pathlib.Path(__file__).resolve().parent
        for root in (here.parent.parent / 'msg', here.parent / 'msg'):  # source tree, installed
            if (root / 'service_msgs' / 'msg' / 'ServiceEventInfo.msg').is_file():
                self.roots.append(root)
                return

    def find_srv(self, pkg, name):
        for root in self.roots:
            p = root / pkg / 'srv' / f'{name}.srv'
            if p.is_file():
                return p
        return None

    def load_srv_file(self, path):
        """Loads the .srv file at path (which must be <root>/<pkg>/srv/<Name>.srv)."""
        _, pkg, name = self._file_root(path, 'srv')
        return self.load_srv(pkg, name)

    def load_srv(self, pkg, name):
        """Loads <root>/<pkg>/srv/<Name>.srv: its request and response become message types
        pkg/srv/Name_Request and pkg/srv/Name_Response (in self.types, as ROS 2 names them), and
        the service-event message's types (service_msgs/ServiceEventInfo) are loaded too."""
        key = f'{pkg}/srv/{name}'
        if key in self.services:
            return self.services[key]
        path = self.find_srv(pkg, name)
        if path is None:
            raise MsgError('<command line>', 0, f'service type {key} not found (looked for '
                           f'{pkg}/srv/{name}.srv in {", ".join(map(str, self.roots))})')
        text = path.read_text(encoding='utf-8')
        lines = text.split('\n')
        try:
            srv = _parse(pkg, name, text, parse_service_string)
        except Exception as e:  # noqa: BLE001 - the adapter raises several kinds
            raise MsgError(path, _error_line(pkg, name, lines, parse_service_string),
                           str(e) or type(e).__name__) from None
        out_dir = self.idl_dir / pkg / 'srv'
        out_dir.mkdir(parents=True, exist_ok=True)
        idl_path = out_dir / f'{name}.idl'
        expand_template('srv.idl.em', {'pkg_name': pkg, 'relative_input_file': f'srv/{name}.srv',
                                       'srv': srv}, idl_path, encoding='iso-8859-1')
        idl = parse_idl_file(IdlLocator(self.idl_dir, idl_path.relative_to(self.idl_dir)))
        services = idl.content.get_elements_of_type(Service)
        if len(services) != 1:
            raise MsgError(path, 0, 'the generated IDL holds no single service')
        sep = lines.index(SRV_SEPARATOR)
        idl_text = idl_path.read_text(encoding='iso-8859-1')
        parts = []
        for suffix, message, part, first in (('_Request', services[0].request_message,
                                              lines[:sep], 1),
                                             ('_Response', services[0].response_message,
                                              lines[sep + 1:], sep + 2)):
            d = Definition(pkg, name + suffix, path, idl_text, message,
                           _member_lines(pkg, name + suffix, part, first), kind='srv')
            d.part_text = '\n'.join(part) + '\n' if part else ''
            self._load_nested(d)
            self.types[f'{pkg}/srv/{name}{suffix}'] = d
            parts.append(d)
        self._add_shipped_root()
        for event_type in EVENT_INFO_TYPES:
            self.load(*event_type.split('/'), used_at=(path, 0))
        s = ServiceDefinition(pkg, name, path, parts[0], parts[1])
        self.services[key] = s
        return s


def nested_definition(loader, t):
    """The Definition of a NamespacedType member type."""
    return loader.types[f'{t.namespaces[0]}/{t.name}']
