"""Stage 2, the expression language: conditions, values and effects' arguments.

- ``expression.lark``: the grammar (Lark, LALR).
- ``parser``: text to parse tree (Lark), once per text; the tree cache.
- ``scope``: name resolution (``Scope``) and what an expression reads (``Env``).
- ``evaluator``: the reference evaluator (closures, each node with its own checks).
- ``expression``: ``compile_expression``, ``compile_template`` and ``Compiled``: the front door,
  re-exporting the public names of the modules above.
- ``codegen``: the code generator, compiling a resolved tree to Python source (Jinja2-style:
  the generator's own identifiers, constants through ``repr``, no builtins); built from
  ``frags`` (namespace, fragments, inferred bounds), ``genexpr`` (expression forms) and
  ``genstmt`` (statement forms).
- ``runtime``: what generated code calls (budget charges, size checks, the helper namespace).
- ``builtins``: the functions a ruleset may call (``count``, ``top``, ``distance``...).

Imports only the stages below (``interpreter.loader`` and the roots).
"""
