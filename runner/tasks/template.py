"""Placeholders in manifest strings: `{name}` and small integer arithmetic such as `{n + 65536}`.

Why arithmetic: runtimes take limits that follow N (Erlang's `+P` must exceed the process count),
and remedies quote them. A fixed set of special names (`n_plus_64k`) grows with every runtime;
an expression does not. It is parsed here, never passed to eval: integers, names that have a
numeric value, `+ - * //` and parentheses, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from runner.units import format_number

# Only names, digits, spaces, operators and parentheses: `{ok, V}` in an Erlang -eval is not ours.
PLACEHOLDER = re.compile(r"\{([\w\s+\-*/()]+)\}")
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(//|[-+*()]))")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


class TemplateError(ValueError):
    """A placeholder that cannot be expanded: unknown name, no value here, or a bad expression."""


def _tokens(expr: str) -> list[str]:
    out, pos = [], 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise TemplateError(f"cannot read {expr[pos:]!r} in {{{expr}}}")
        out.append(m.group(m.lastindex or 0))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over: expr := term (('+'|'-') term)*; term := atom (('*'|'//') atom)*."""

    def __init__(self, expr: str, numbers: Mapping[str, float]) -> None:
        self.expr, self.numbers, self.tokens, self.i = expr, numbers, _tokens(expr), 0

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise TemplateError(f"{{{self.expr}}} ends too early")
        self.i += 1
        return token

    def parse(self) -> float:
        value = self._sum()
        if self._peek() is not None:
            raise TemplateError(f"unexpected {self._peek()!r} in {{{self.expr}}}")
        return value

    def _sum(self) -> float:
        value = self._product()
        while self._peek() in ("+", "-"):
            value = value + self._product() if self._take() == "+" else value - self._product()
        return value

    def _product(self) -> float:
        value = self._atom()
        while self._peek() in ("*", "//"):
            if self._take() == "*":
                value *= self._atom()
            else:
                divisor = self._atom()
                if divisor == 0:
                    raise TemplateError(f"division by zero in {{{self.expr}}}")
                value //= divisor
        return value

    def _atom(self) -> float:
        token = self._take()
        if token == "(":
            value = self._sum()
            if self._take() != ")":
                raise TemplateError(f"missing ')' in {{{self.expr}}}")
            return value
        if token.isdigit():
            return int(token)
        if _NAME.match(token):
            if token not in self.numbers:
                raise TemplateError(f"{token!r} has no numeric value in {{{self.expr}}}")
            return self.numbers[token]
        raise TemplateError(f"unexpected {token!r} in {{{self.expr}}}")


def names_in(text: str) -> set[str]:
    """Every name a string's placeholders use, plain or inside an expression."""
    out: set[str] = set()
    for body in PLACEHOLDER.findall(text):
        out |= {t for t in _tokens(body) if _NAME.match(t)}
    return out


def is_expression(body: str) -> bool:
    return not _NAME.match(body.strip())


def expand(text: str, values: Mapping[str, str]) -> str:
    """Replace every `{name}` by its value and every `{expression}` by its integer result.

    Names in an expression must have numeric values (n, sleep, ...). A placeholder with no value
    is a TemplateError, never left in place: a literal `{n}` reaching a program is a silent bug.
    """

    def numbers() -> dict[str, float]:
        out = {}
        for key, value in values.items():
            try:
                out[key] = float(value) if "." in value else int(value)
            except ValueError:
                continue
        return out

    def repl(m: re.Match[str]) -> str:
        body = m.group(1)
        if not is_expression(body):
            name = body.strip()
            if name not in values:
                raise TemplateError(f"placeholder {{{name}}} has no value here (tool not found?)")
            return values[name]
        return format_number(_Parser(body, numbers()).parse())

    return PLACEHOLDER.sub(repl, text)


def check(text: str, known: set[str]) -> None:
    """Fail at load time on an unknown name or a malformed expression, before any run."""
    for body in PLACEHOLDER.findall(text):
        for name in names_in("{" + body + "}"):
            if name not in known:
                raise TemplateError(f"unknown placeholder {{{name}}} in {text!r}")
        if is_expression(body):
            _Parser(body, dict.fromkeys(known, 1)).parse()
