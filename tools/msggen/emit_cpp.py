"""C++ views of one message type, behind `#ifdef __cplusplus` at the end of its C header: a writer
(members of a loan) and a reader (members of a received message), one method per member, and the
zcast::msg_traits specialization include/zcast/typed.hpp's typed publishers and subscribers use.
C consumers of the header see none of it."""

# C++ keywords a .msg member may be named (valid C, not C++): such a method gets a trailing '_'
# (no .msg name ends in '_', so it clashes with nothing).
CPP_KEYWORDS = {
    'alignas', 'alignof', 'and', 'and_eq', 'asm', 'bitand', 'bitor', 'catch', 'class', 'compl',
    'concept', 'const_cast', 'consteval', 'constexpr', 'constinit', 'co_await', 'co_return',
    'co_yield', 'decltype', 'delete', 'dynamic_cast', 'explicit', 'export', 'false', 'friend',
    'mutable', 'namespace', 'new', 'noexcept', 'not', 'not_eq', 'nullptr', 'operator', 'or',
    'or_eq', 'private', 'protected', 'public', 'reinterpret_cast', 'requires', 'static_assert',
    'static_cast', 'template', 'this', 'thread_local', 'throw', 'true', 'try', 'typeid',
    'typename', 'using', 'virtual', 'wchar_t', 'xor', 'xor_eq', 'char8_t', 'char16_t',
    'char32_t', 'bool',
}


def _method(name):
    return name + '_' if name in CPP_KEYWORDS else name


def _value_type(f):
    """C++ type of one value in place: bools are bytes in arrays and sequences (another process
    may write any byte; a C++ bool must be 0 or 1)."""
    return 'uint8_t' if f.kind == 'BOOL' else f.c_type


def _writer_method(t, f, k):
    n, who, seq = _method(f.name), f'"{t.name}: member {f.name}"', str(f.shape == 'SEQUENCE').lower()
    if f.kind == 'STRUCT':
        N = f.nested.ident
        if f.shape == 'ONE':
            return f'{N}_Writer {n}() const noexcept {{ return nested_<{N}_Writer>({k}, {f.bounds_index}); }}'
        return (f'zcast::messages_ref<{N}> {n}() const noexcept '
                f'{{ return messages_<{N}>({k}, {f.bounds_index}, {seq}, {who}); }}')
    if f.kind == 'STRING':
        if f.shape == 'ONE':
            return f'zcast::string_ref {n}() const noexcept {{ return string_({k}, {who}); }}'
        return (f'zcast::strings_ref {n}() const noexcept '
                f'{{ return strings_({k}, {f.bounds_index}, {seq}, {who}); }}')
    if f.shape == 'ONE':
        T = 'bool' if f.kind == 'BOOL' else f.c_type
        return f'zcast::scalar_ref<{T}> {n}() const noexcept {{ return scalar_<{T}>({k}); }}'
    V = _value_type(f)
    if f.shape == 'ARRAY':
        return f'zcast::span<{V}> {n}() const noexcept {{ return array_<{V}>({k}); }}'
    return f'zcast::sequence_ref<{V}> {n}() const noexcept {{ return sequence_<{V}>({k}, {who}); }}'


def _reader_method(f, k):
    n = _method(f.name)
    if f.kind == 'STRUCT':
        N = f.nested.ident
        if f.shape == 'ONE':
            return f'{N}_Reader {n}() const noexcept {{ return nested_<{N}_Reader>({k}); }}'
        return f'zcast::message_list<{N}> {n}() const noexcept {{ return messages_<{N}>({k}); }}'
    if f.kind == 'STRING':
        if f.shape == 'ONE':
            return f'std::string_view {n}() const noexcept {{ return string_({k}); }}'
        return f'zcast::string_list {n}() const noexcept {{ return strings_({k}); }}'
    if f.shape == 'ONE':
        T = 'bool' if f.kind == 'BOOL' else f.c_type
        return f'{T} {n}() const noexcept {{ return scalar_<{T}>({k}); }}'
    V = _value_type(f)
    return f'zcast::span<const {V}> {n}() const noexcept {{ return values_<{V}>({k}); }}'


def _n_flat(t):
    """Reader/writer slots of t: single nested messages expanded (emit_c's flat slots)."""
    return sum(_n_flat(f.nested) if f.kind == 'STRUCT' and f.shape == 'ONE' else 1
               for f in t.fields)


def cpp_section(t):
    """The C++ part of t's header (t's nested types' headers, included before, have theirs)."""
    I = t.ident
    w, r, k = [], [], 0
    for f in t.fields:
        w.append('\t' + _writer_method(t, f, k))
        r.append('\t' + _reader_method(f, k))
        k += _n_flat(f.nested) if f.kind == 'STRUCT' and f.shape == 'ONE' else 1
    bounds = f'{I}_bounds' if t.n_bounds else 'zcast::no_bounds'
    return '\n'.join([
        '#if defined(__cplusplus) && __cplusplus >= 201703L && !defined(ZCAST_NO_CPP_VIEWS)',
        '#include <zcast/typed.hpp>',
        f'/* C++ views (docs/CPP.md "Typed messages"): the members of a loan of {t.name}. */',
        f'class {I}_Writer : public zcast::detail::writer_base {{',
        'public:', '\tusing writer_base::writer_base;'] + w + ['};',
        f'/* The members of a received {t.name}, in place. */',
        f'class {I}_Reader : public zcast::detail::reader_base {{',
        'public:', '\tusing reader_base::reader_base;'] + r + ['};',
        'namespace zcast {',
        f'template <> struct msg_traits<{I}> {{',
        f'\tusing writer = {I}_Writer;', f'\tusing reader = {I}_Reader;',
        f'\tusing bounds = {bounds};', f'\tstatic constexpr uint32_t n_flat = {k};',
        f'\tstatic const zcast_cdr_type &type() noexcept {{ return {I}_TYPE; }}',
        '};', '} // namespace zcast', '#endif', ''])
