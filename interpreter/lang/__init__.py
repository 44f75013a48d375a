"""Stage 2, the expression language: conditions, values and effects' arguments.

- ``expression.lark``: the grammar (Lark, LALR).
- ``expression``: the parser, name resolution, and the reference evaluator (closures).
- ``codegen``: the code generator, compiling a resolved tree to Python source (Jinja2-style:
  the generator's own identifiers, constants through ``repr``, no builtins).
- ``builtins``: the functions a ruleset may call (``count``, ``top``, ``distance``...).

Imports only the stages below (``interpreter.loader`` and the roots).
"""
