"""The .msg text of a type with its dependencies, as rosbag2 stores it in an MCAP schema
(`ros2msg` encoding): the type's own .msg file, then for every type it uses (directly or not, each
once) a line of 80 '=', a line 'MSG: pkg/Name' and that type's .msg file. `zcast record` writes it
(docs/RECORDING.md); the generated header carries it as <ident>_MSG_TEXT."""
from rihs01 import referenced

SEPARATOR = '=' * 80


def definition_text(loader, d):
    parts = [d.source_text]
    refs = referenced(loader, d)
    for name in sorted(refs):
        r = refs[name]
        text = r.source_text
        parts.append(f'{SEPARATOR}\nMSG: {r.pkg}/{r.name}\n{text}')
    return '\n'.join(p if p.endswith('\n') or not p else p + '\n' for p in parts).rstrip('\n') + '\n'


def c_string(text):
    """text as a C string literal, one source line per line of text."""
    def esc(line):
        return line.replace('\\', '\\\\').replace('"', '\\"').replace('\t', '\\t')
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return ' \\\n'.join(f'\t"{esc(l)}\\n"' for l in lines) or '""'


def add_to_header(header_text, ident, text):
    """The generated header with `#define <ident>_MSG_TEXT "..."` before its closing #endif."""
    head, sep, tail = header_text.rpartition('#endif')
    return f'{head}/* The .msg text with its dependencies (rosbag2 MCAP ros2msg schema form). */\n' \
           f'#define {ident}_MSG_TEXT \\\n{c_string(text)}\n\n{sep}{tail}'
