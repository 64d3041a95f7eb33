"""A JavaScript program made ready for node: rewritten for a ``vm.Script`` (``commonjs``:
``import``/``export`` as ``require`` and plain declarations), or run as a program when it reads
its standard input (``reads_stdin``)."""

from __future__ import annotations

import re

from .. import languages
from .inputs.js_literals import node_text

_STDIN = re.compile(r"process\s*\.\s*stdin|readFileSync\s*\(\s*(?:0|['\"]/dev/stdin['\"])|"
                    r"require\s*\(\s*['\"](?:node:)?readline['\"]\s*\)|from\s+['\"](?:node:)?readline['\"]")


def reads_stdin(source: str) -> bool:
    """Whether a program reads its standard input (then it is run as a program, not called)."""
    return bool(_STDIN.search(source))


def commonjs(source: str) -> str:
    """``source`` with ``import`` as ``require`` and ``export`` keywords removed (what a
    ``vm.Script`` runs); lines stay where they were. Unchanged when it does not parse or has
    neither."""
    if "import" not in source and "export" not in source:
        return source
    data = source.encode("utf-8")
    root = languages.get("javascript").parse(data).root_node
    if root.has_error:
        return source
    edits: list[tuple[int, int, str]] = []
    for statement in root.named_children:
        if statement.type == "import_statement":
            edits.append((statement.start_byte, statement.end_byte, _required(statement, data)))
        elif statement.type == "export_statement":
            edit = _unexported(statement, data)
            if edit is not None:
                edits.append(edit)
    if not edits:
        return source
    out, position = bytearray(), 0
    for start, end, text in edits:
        out += data[position:start] + text.encode("utf-8")
        position = end
    out += data[position:]
    return out.decode("utf-8", "replace")


def _lines_of(node, data: bytes) -> str:  # type: ignore[no-untyped-def]
    return "\n" * data[node.start_byte:node.end_byte].count(b"\n")


def _required(statement, data: bytes) -> str:  # type: ignore[no-untyped-def]
    source = statement.child_by_field_name("source")
    module = node_text(source, data) if source is not None else "''"
    loaded = f"require({module})"
    if module[1:2] in (".", "/"):  # a file of the exercise, absent here: often types only
        loaded = f"(() => {{ try {{ return require({module}); }} catch (e) {{ return {{}}; }} }})()"
    clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
    parts: list[str] = []
    if clause is None:
        parts.append(f"{loaded};")
    else:
        for child in clause.named_children:
            if child.type == "identifier":
                parts.append(f"const {node_text(child, data)} = {loaded};")
            elif child.type == "namespace_import":
                name = next((c for c in child.named_children if c.type == "identifier"), None)
                if name is not None:
                    parts.append(f"const {node_text(name, data)} = {loaded};")
            elif child.type == "named_imports":
                names = []
                for specifier in child.named_children:
                    if specifier.type != "import_specifier":
                        continue
                    name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                    if name is None:
                        continue
                    names.append(f"{node_text(name, data)}: {node_text(alias, data)}" if alias is not None else node_text(name, data))
                parts.append(f"const {{{', '.join(names)}}} = {loaded};")
    return " ".join(parts) + _lines_of(statement, data)


def _unexported(statement, data: bytes) -> tuple[int, int, str] | None:  # type: ignore[no-untyped-def]
    declaration = statement.child_by_field_name("declaration")
    value = statement.child_by_field_name("value")
    if declaration is not None:  # ``export [default] function f`` -> ``function f``
        return statement.start_byte, declaration.start_byte, " " * (declaration.start_byte - statement.start_byte)
    if value is not None:  # ``export default <expression>``
        return statement.start_byte, value.start_byte, "module.exports.default = "
    clause = next((c for c in statement.named_children if c.type == "export_clause"), None)
    source = statement.child_by_field_name("source")
    if source is not None:
        return statement.start_byte, statement.end_byte, (
            f"Object.assign(module.exports, require({node_text(source, data)}));" + _lines_of(statement, data))
    if clause is not None:  # ``export {a, b as c}``
        pairs = []
        for specifier in clause.named_children:
            name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
            if name is not None:
                pairs.append(f"{node_text(alias if alias is not None else name, data)}: {node_text(name, data)}")
        return statement.start_byte, statement.end_byte, (
            f"Object.assign(module.exports, {{{', '.join(pairs)}}});" + _lines_of(statement, data))
    return None
