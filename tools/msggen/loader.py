"""Load ROS 2 .msg definitions with ROS 2's own parsers (Debian python3-rosidl).

A .msg file goes through rosidl_adapter (.msg -> .idl, the text ROS 2 generates) and the .idl through
rosidl_parser, so what we accept and how we read it is exactly what ROS 2 does. Errors carry the
.msg file and line.
"""
import contextlib
import io
import pathlib
import tempfile

from rosidl_adapter.parser import parse_message_string
from rosidl_adapter.resource import expand_template
from rosidl_parser.definition import (AbstractNestedType, IdlLocator, Message, NamespacedType)
from rosidl_parser.parser import parse_idl_file


class MsgError(Exception):
    """An invalid definition: str() is 'file:line: message'."""

    def __init__(self, path, line, message):
        super().__init__(f'{path}:{line}: {message}' if line else f'{path}: {message}')


class Definition:
    """One message type: its parsed IDL message, .msg path, .idl text and member lines."""

    def __init__(self, pkg, name, msg_path, idl_text, message, member_lines):
        self.pkg, self.name = pkg, name
        self.msg_path, self.idl_text = msg_path, idl_text
        self.message = message            # rosidl_parser.definition.Message
        self.member_lines = member_lines  # member name -> line in the .msg file

    @property
    def type_name(self):
        return f'{self.pkg}/msg/{self.name}'

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


def _parse(pkg, name, text):
    """rosidl_adapter's .msg parser; it also prints what it raises, which we report ourselves."""
    with contextlib.redirect_stderr(io.StringIO()):
        return parse_message_string(pkg, name, text)


def _error_line(pkg, name, lines):
    """Line of the first error: the shortest prefix of the file that the adapter rejects."""
    for n in range(1, len(lines) + 1):
        try:
            _parse(pkg, name, '\n'.join(lines[:n]))
        except Exception:  # noqa: BLE001 - any rejection marks the line
            return n
    return 0


def _member_lines(pkg, name, lines):
    """Line where each field is declared (a field appears when its line joins the prefix)."""
    result, seen = {}, 0
    for n in range(1, len(lines) + 1):
        spec = _parse(pkg, name, '\n'.join(lines[:n]))
        if len(spec.fields) > seen:
            result[spec.fields[-1].name] = n
            seen = len(spec.fields)
    return result


class Loader:
    """Finds <root>/<pkg>/msg/<Name>.msg in the search roots, loads it and everything it uses."""

    def __init__(self, roots, idl_dir=None):
        self.roots = [pathlib.Path(r).resolve() for r in roots]
        self._tmp = None
        if idl_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix='zcast-msggen-')
            idl_dir = self._tmp.name
        self.idl_dir = pathlib.Path(idl_dir).resolve()
        self.types = {}  # 'pkg/Name' -> Definition
        self._loading = set()

    def find(self, pkg, name):
        for root in self.roots:
            p = root / pkg / 'msg' / f'{name}.msg'
            if p.is_file():
                return root, p
        return None, None

    def load_file(self, path):
        """Loads the .msg file at path (which must be <root>/<pkg>/msg/<Name>.msg)."""
        path = pathlib.Path(path).resolve()
        if path.suffix != '.msg' or path.parent.name != 'msg':
            raise MsgError(path, 0, 'expected a file <package>/msg/<Name>.msg')
        root = path.parent.parent.parent
        if root not in self.roots:
            self.roots.append(root)
        return self.load(path.parent.parent.name, path.stem, root)

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
        for m in d.members:
            t = m.type.value_type if isinstance(m.type, AbstractNestedType) else m.type
            if isinstance(t, NamespacedType):
                if len(t.namespaces) != 2 or t.namespaces[1] != 'msg':
                    raise MsgError(path, d.member_lines.get(m.name, 0),
                                   f'unsupported type {"/".join(t.namespaced_name())}')
                self.load(t.namespaces[0], t.name, used_at=(path, d.member_lines.get(m.name, 0)))
        self._loading.discard(key)
        self.types[key] = d
        return d


def nested_definition(loader, t):
    """The Definition of a NamespacedType member type."""
    return loader.types[f'{t.namespaces[0]}/{t.name}']
