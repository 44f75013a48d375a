"""The browser table's guards: what a request may ask for, checked before anything is built from
it, and the bounded pool in which agents think.  Nothing here knows a table or a route:
:mod:`interpreter.web.tables` and :mod:`interpreter.web.server` build on it.

- :class:`Limits`: what one server allows each client (effort of an agent, tables, creations an
  hour, body size, connections, time-outs: the ``tapster serve`` options of the same names).
- The request bodies as data: :data:`CREATE_SCHEMA` (``POST /api/tables`` and the form) and
  :data:`ACT_SCHEMA` (``POST /t/<t>/<k>/act``), JSON Schema 2020-12; :func:`parse_json` turns
  bytes into a checked ``dict``; ``parse_params_text`` turns the form's ``NAME=VALUE`` lines into a
  ``dict`` (values read as safe YAML); ``agent_within`` checks an agent spec against the limits.
- What may be sent back: ``fit_message`` cuts a message to :data:`MAX_MESSAGE` characters with no
  file-system path; ``token_hash`` is the SHA-256 (hex) kept in place of a token.
- :func:`client_address`: the client a connection counts as for the quotas (an IPv4 address, an
  IPv6 /64 network); :func:`network_address`: the network it counts as for the table cap's
  share (an IPv4 /24, an IPv6 /48).
- :class:`StreamBudget`: the long-lived connections (event streams) open, by client and in all.
- :class:`RefusalBudget`: the server CPU each client's refused requests used in the last hour,
  and the answers to refused configurations (given again without the work).
- ``lower_agent``: a stored agent spec brought within today's limits.
- :class:`FairPool`: a fixed pool of worker threads taking one client's job after another's
  (round robin), so one client's many tables cannot starve another's.

Errors: every refusal of a request is a :class:`~interpreter.errors.TapsterError` whose message
names the field and what was expected, never echoing the body (at most :data:`MAX_MESSAGE`
characters); :meth:`FairPool.submit` raises RuntimeError once the pool is shut down.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import jsonschema

from ..agents.core import parse_agent
from ..agents.search import PARAMS as AGENT_PARAMS
from ..errors import TapsterError
from ..loader.load import load_yaml_text

__all__ = ["Limits", "CREATE_SCHEMA", "ACT_SCHEMA", "CREATE_CHECK", "ACT_CHECK", "MAX_PARAMS_TEXT", "MAX_MESSAGE",
           "MAX_SEED", "MAX_PARAM_NODES", "MAX_PARAMS", "parse_json", "client_address", "network_address", "FairPool", "token_hash",
           "fit_message", "check_unicode", "agent_within", "lower_agent", "parse_params_text", "schema_error",
           "StreamBudget", "RefusalBudget"]

#: Limits on what a form may ask for.
MAX_PARAMS_TEXT = 4000
#: The most YAML nodes (values, lists) one parameter's value may hold (a list of at most 64 items, as
#: :data:`CREATE_SCHEMA` allows), counted as they are read; anchors and aliases are refused
#: outright (a parameter is a plain value or a list of them), and at most 32 parameters are read.
MAX_PARAM_NODES = 65
MAX_PARAMS = 32
#: The longest message text echoed back (anything longer is cut, with an ellipsis).
MAX_MESSAGE = 300
MAX_SEED = 2**64 - 1

_SCALAR = {"type": ["string", "number", "boolean"], "maxLength": 200}

#: The JSON body of ``POST /api/tables`` (the form's fields are converted to the same data).
CREATE_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "a new table",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "ruleset": {"type": "string", "minLength": 1, "maxLength": 100},
        "variant": {"type": ["string", "null"], "maxLength": 200},
        "players": {"type": ["integer", "null"], "minimum": 1, "maximum": 64},
        "agents": {"oneOf": [
            {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 100}},
            {"type": "string", "maxLength": 2000},
        ]},
        "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_SEED},
        "params": {"oneOf": [
            {"type": "object", "maxProperties": 32, "propertyNames": {"minLength": 1, "maxLength": 64},
             "additionalProperties": {"oneOf": [_SCALAR, {"type": "array", "maxItems": 64, "items": _SCALAR}]}},
            {"type": "string", "maxLength": MAX_PARAMS_TEXT},
            {"type": "null"},
        ]},
    },
}

#: The JSON body of ``POST /t/<t>/<k>/act``.
ACT_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "an action",
    "type": "object",
    "additionalProperties": False,
    "required": ["action"],
    "properties": {
        "action": {"type": "string", "minLength": 1, "maxLength": 500},
        "version": {"type": ["integer", "null"], "minimum": 0, "maximum": 2**53},
    },
}

CREATE_CHECK = jsonschema.Draft202012Validator(CREATE_SCHEMA)
ACT_CHECK = jsonschema.Draft202012Validator(ACT_SCHEMA)


@dataclass(frozen=True)
class Limits:
    """What one server allows each client (the ``tapster serve`` options of the same names).

    ``max_agent_seconds``: the longest an agent may think (``mcts:seconds=``); ``max_agent_iterations``:
    the most iterations it may ask for; ``agent_workers``: threads moving agents (a bounded pool
    apart from request handling); ``tables_per_client``: live tables one client address may hold;
    ``creations_per_hour``: tables one client address may create in an hour; ``max_tables``: all
    live tables; ``finished_ttl`` / ``idle_ttl``: seconds after which a finished / untouched table
    is deleted; ``max_body``: bytes of a request body; ``compiled_cache``: compiled rulesets kept
    (least recently used dropped); ``custom_rulesets``: distinct parameter settings the live tables
    may hold (each is a compiled ruleset of a few MB); ``max_connections`` / ``connections_per_client``: open
    connections in all / from one client address (more are closed at once);
    ``request_timeout``: seconds a connection may take to send a whole request;
    ``idle_per_client``: connections one client may keep waiting (half-open, or idle between
    requests): a new one closes its oldest waiting one, and when every slot is taken the client
    with the most waiting connections loses its oldest; ``streams_per_client`` / ``max_streams``:
    event streams open from one client / in all (``max_streams`` None: half of
    ``max_connections``; never more than three quarters of it, see :attr:`stream_cap`);
    ``stream_seconds``: the lifetime of an event stream (the page then reconnects);
    ``tables_per_network``: live tables one network (IPv4 /24, IPv6 /48) may hold;
    ``refusal_seconds``: server CPU seconds one client's refused table requests may use in an
    hour (then its requests are answered 429 before any work).  A served agent's move ends by
    ``max_agent_seconds`` whatever its spec (the search's deadline), and a playout is at most
    :data:`interpreter.limits.MAX_PLAYOUT_DEPTH` actions.
    """

    max_agent_seconds: float = 3.0
    max_agent_iterations: int = 5000
    agent_workers: int = 2
    tables_per_client: int = 20
    creations_per_hour: int = 60
    max_tables: int = 10_000
    finished_ttl: float = 24 * 3600.0
    idle_ttl: float = 7 * 24 * 3600.0
    max_body: int = 8192
    compiled_cache: int = 32
    custom_rulesets: int = 32
    max_connections: int = 200
    connections_per_client: int = 64
    request_timeout: float = 10.0
    idle_per_client: int = 8
    streams_per_client: int = 16
    max_streams: int | None = None
    stream_seconds: float = 300.0
    tables_per_network: int = 100
    refusal_seconds: float = 2.0

    @property
    def stream_cap(self) -> int:
        """The event streams open in all: ``max_streams`` (default half of ``max_connections``),
        at most ``max_connections`` less a quarter of it (at least one slot), which stay for plain
        requests."""
        keep = max(1, self.max_connections // 4)
        wanted = self.max_connections // 2 if self.max_streams is None else self.max_streams
        return max(0, min(wanted, self.max_connections - keep))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


_PATH = re.compile(r"(?<![\w.:/])(?:[A-Za-z]:\\|/)[^\s'\"]*[/\\]([^\s/\\'\"]+)")


def fit_message(message: object) -> str:
    """A message fit to send back: no server file-system path (a path is cut to its file's
    name) and at most :data:`MAX_MESSAGE` characters."""
    text = _PATH.sub(lambda m: m.group(1), str(message))
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


def schema_error(validator, data) -> str | None:
    """The first problem of ``data`` against a request schema, short and without the data."""
    err = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if err is None:
        return None
    where = "/".join(str(x) for x in err.absolute_path) or "the body"
    expected = {"type": "of another kind", "maxLength": "too long", "minLength": "empty", "maximum": "too large",
                "minimum": "too small", "additionalProperties": "not a field here", "required": "missing a field",
                "maxItems": "too long a list", "maxProperties": "too many entries", "oneOf": "of another kind",
                "propertyNames": "a name too long or empty"}.get(err.validator, "not valid")
    kind, value = err.validator, err.validator_value
    detail = ""
    if kind == "type":
        detail = f" (expected {' or '.join(value) if isinstance(value, list) else value})"
    elif kind in ("maximum", "minimum"):
        detail = f" ({'at most' if kind == 'maximum' else 'at least'} {value})"
    elif kind == "maxLength":
        detail = f" (at most {value} characters)"
    elif kind == "required" and isinstance(value, list):
        detail = f" ({', '.join(map(str, value))})"
    elif kind == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {}))) if isinstance(err.instance, dict) else []
        detail = f" ({', '.join(repr(fit_message(k)[:40]) for k in extra[:3])})" if extra else ""
        where = "/".join(str(x) for x in err.absolute_path) or "the request"
    return fit_message(f"{where}: {expected}{detail}")


def check_unicode(value: Any, depth: int = 0) -> None:
    """Raise TapsterError for text that is not Unicode (a lone surrogate such as ``\\ud800``)."""
    if depth > 8:
        raise TapsterError("the request is nested too deeply")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise TapsterError("the request holds text that is not Unicode (a lone surrogate)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_unicode(k, depth + 1)
            check_unicode(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            check_unicode(v, depth + 1)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes, validator) -> dict:
    """Decode a request body and check it against a request schema.

    Raises:
        TapsterError: not UTF-8, not JSON (``NaN``/``Infinity`` included), nested too deeply, a
            number too long, text that is not Unicode, or anything the schema refuses (a short
            message naming the field, never echoing the body).
    """
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise TapsterError("the body is not UTF-8 text") from None
    except RecursionError:
        raise TapsterError("the JSON is nested too deeply") from None
    except ValueError as exc:
        why = "a number in it is too long" if "digits" in str(exc) else "NaN and Infinity are not numbers" \
            if "not a JSON number" in str(exc) else "it is not valid JSON"
        raise TapsterError(f"expected a JSON object: {why}") from None
    if not isinstance(data, dict):
        raise TapsterError("expected a JSON object")
    check_unicode(data)
    problem = schema_error(validator, data)
    if problem:
        raise TapsterError(problem)
    return data


def lower_agent(spec: str, limits: Limits) -> str:
    """A stored agent ``spec`` brought within today's ``limits`` (and the agents' declared
    ranges): seconds, iterations and worlds lowered to the server's maxima, depth to
    :data:`~interpreter.limits.MAX_PLAYOUT_DEPTH`, parameters no longer known dropped.  Returns
    ``spec`` itself when it is within them already, or names no known agent (a move then fails
    with the agent's own message)."""
    name, *pairs = str(spec).strip().split(":")
    declared = AGENT_PARAMS.get(name.strip())
    if declared is None:
        return spec
    caps = {"seconds": limits.max_agent_seconds, "iterations": limits.max_agent_iterations, "worlds": limits.max_agent_iterations}
    out = [name.strip()]
    for pair in pairs:
        key, eq, text = pair.partition("=")
        key = key.strip()
        if not eq or key not in declared:
            continue
        kind, _, lo, hi, _ = declared[key]
        try:
            value = kind(float(text.strip())) if len(text) <= 30 else hi
        except (ValueError, OverflowError):
            continue
        if value != value:
            continue
        value = max(lo, min(value, hi, caps.get(key, hi)))
        out.append(f"{key}={value:g}" if kind is float else f"{key}={value}")
    if "iterations" in declared and not any(p.startswith("iterations=") for p in out[1:]) \
            and declared["iterations"][1] > limits.max_agent_iterations:
        out.append(f"iterations={limits.max_agent_iterations}")
    lowered = ":".join(out)
    try:
        return spec if agent_within(spec, limits) == spec.strip() else lowered
    except TapsterError:
        return lowered


def agent_within(spec: str, limits: Limits) -> str:
    """``spec`` checked as an agent within the server's effort limits; returns it stripped.

    Raises:
        TapsterError: an unknown agent or parameter, or more seconds or iterations than allowed.
    """
    name, params = parse_agent(spec)
    declared = AGENT_PARAMS.get(name, {})
    if "seconds" in declared and params.get("seconds", 0.0) > limits.max_agent_seconds:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_seconds:g} seconds a move here")
    if "iterations" in declared and params.get("iterations", declared["iterations"][1]) > limits.max_agent_iterations:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_iterations} iterations a move here")
    if "worlds" in declared and params.get("worlds", 1) > limits.max_agent_iterations:
        raise TapsterError(f"agent {name}: at most {limits.max_agent_iterations} worlds here")
    return spec.strip()


def network_address(address: str) -> str:
    """The network a connection's address counts in for the table cap's share: an IPv4 address
    its /24, an IPv6 address its /48 (an IPv4-mapped one as IPv4; anything else as given)."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ipaddress.ip_network(f"{ip}/{24 if ip.version == 4 else 48}", strict=False))


def client_address(address: str) -> str:
    """The client a connection's address counts as for the quotas: an IPv4 address itself, an
    IPv6 address its /64 network (one subscriber's share; anything else as given)."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


class FairPool:
    """A fixed pool of worker threads that takes its jobs from one queue per client in turn
    (round robin), so one client's many tables cannot make another's wait behind all of them.

    ``workers``: the threads (named ``tapster-agent-N``, started at the first job).  :meth:`submit` returns a
    :class:`concurrent.futures.Future`; :meth:`shutdown` lets the jobs under way finish and
    cancels the queued ones.
    """

    def __init__(self, workers: int):
        self._queues: OrderedDict = OrderedDict()  # client -> deque of (future, fn, args)
        self._ready = threading.Condition()
        self._stopping = False
        self._workers = workers
        self._threads: list[threading.Thread] = []

    def submit(self, client: str, fn, *args) -> Future:
        """Queue ``fn(*args)`` behind ``client``'s earlier jobs.  Raises RuntimeError after
        :meth:`shutdown`."""
        future: Future = Future()
        with self._ready:
            if self._stopping:
                raise RuntimeError("the pool is shut down")
            self._queues.setdefault(client, deque()).append((future, fn, args))
            if not self._threads:
                self._threads = [threading.Thread(target=self._work, name=f"tapster-agent-{i}", daemon=True)
                                 for i in range(self._workers)]
                for t in self._threads:
                    t.start()
            self._ready.notify()
        return future

    def _next(self):
        with self._ready:
            while not self._stopping and not self._queues:
                self._ready.wait()
            if self._stopping:
                return None
            client, queue = next(iter(self._queues.items()))
            job = queue.popleft()
            del self._queues[client]
            if queue:
                self._queues[client] = queue  # to the back of the line
            return job

    def _work(self) -> None:
        while (job := self._next()) is not None:
            future, fn, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the future
                future.set_exception(exc)

    def shutdown(self) -> None:
        """Stop taking jobs: those under way finish, queued ones are cancelled."""
        with self._ready:
            self._stopping = True
            for queue in self._queues.values():
                for future, _, _ in queue:
                    future.cancel()
            self._queues.clear()
            self._ready.notify_all()
            threads = list(self._threads)
        for t in threads:
            if t is not threading.current_thread():
                t.join()


class StreamBudget:
    """The long-lived connections (event streams) open now, by client and in all: at most
    ``per_client`` from one client (count them by :func:`client_address`) and ``total`` in all.
    Thread-safe.  :meth:`open` returns whether a stream may open (and then counts it);
    :meth:`close` ends one."""

    def __init__(self, total: int, per_client: int):
        self.total, self.per_client = total, per_client
        self._open: dict[str, int] = {}
        self._count = 0
        self._lock = threading.Lock()

    def open(self, client: str) -> str | None:
        """Count a new stream of ``client``; None when it may open, else why not (a message)."""
        with self._lock:
            mine = self._open.get(client, 0)
            if mine >= self.per_client:
                return f"you have {self.per_client} live updates open here already (the most one client may); close a tab"
            if self._count >= self.total:
                return f"this server has {self.total} live updates open (the most it keeps); reload the page later"
            self._open[client] = mine + 1
            self._count += 1
            return None

    def close(self, client: str) -> None:
        """One stream of ``client`` ended."""
        with self._lock:
            mine = self._open.get(client, 0)
            if mine <= 0:
                return
            self._count -= 1
            if mine == 1:
                del self._open[client]
            else:
                self._open[client] = mine - 1

    def count(self, client: str | None = None) -> int:
        """Streams open: ``client``'s, or all of them."""
        with self._lock:
            return self._count if client is None else self._open.get(client, 0)


class RefusalBudget:
    """What refused requests cost, per client: the server CPU seconds (thread time) their refused
    table requests took in the last hour, at most ``seconds`` each (then :meth:`over` says so and
    the request is answered 429 before any work), and the answers to refused configurations
    (``key``, a digest of the configuration, -> message; the last ``remembered`` of them) given
    again without the work.
    Thread-safe; ``now`` is seconds since the epoch."""

    def __init__(self, seconds: float, remembered: int = 4096):
        self.seconds = seconds
        self.remembered = remembered
        self._spent: OrderedDict = OrderedDict()  # client -> deque of (time, cpu seconds)
        self._answers: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def spent(self, client: str, now: float) -> float:
        """CPU seconds ``client``'s refusals took in the hour before ``now``."""
        with self._lock:
            items = self._spent.get(client)
            if not items:
                return 0.0
            while items and items[0][0] < now - 3600:
                items.popleft()
            return sum(c for _, c in items)

    def over(self, client: str, now: float) -> bool:
        """Whether ``client``'s refusals used up its hour's CPU."""
        return self.spent(client, now) >= self.seconds

    def charge(self, client: str, now: float, cpu: float) -> None:
        """Count a refusal of ``client`` that took ``cpu`` seconds (at least a millisecond)."""
        with self._lock:
            items = self._spent.pop(client, None) or deque()
            items.append((now, max(cpu, 0.001)))
            while len(items) > 10_000:
                items.popleft()
            self._spent[client] = items
            while len(self._spent) > 10_000:
                self._spent.popitem(last=False)

    def answer(self, key: str) -> str | None:
        """The refusal remembered for the configuration ``key``, or None."""
        with self._lock:
            message = self._answers.get(key)
            if message is not None:
                self._answers.move_to_end(key)
            return message

    def remember(self, key: str, message: str) -> None:
        """Remember that the configuration ``key`` is refused with ``message``."""
        with self._lock:
            self._answers[key] = message
            self._answers.move_to_end(key)
            while len(self._answers) > self.remembered:
                self._answers.popitem(last=False)


def _check_param_yaml(name: str, value: str) -> None:
    """Read ``value``'s YAML events (not the data) and refuse, as they come, an anchor, an alias,
    a mapping, a list inside a list, or more than :data:`MAX_PARAM_NODES` nodes.

    Raises TapsterError."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0
    budget = MAX_PARAM_NODES
    try:
        for event in yaml.parse(value, Loader=loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise TapsterError(f"the value of {fit_message(name)}: anchors and aliases (&, *) are not allowed in parameters")
            if isinstance(event, yaml.MappingStartEvent):
                raise TapsterError(f"the value of {fit_message(name)} is a plain value or a list of them, not a mapping")
            if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent)):
                budget -= 1
                if budget < 0:
                    raise TapsterError(f"the value of {fit_message(name)}: a list of at most {MAX_PARAM_NODES - 1} items")
            if isinstance(event, yaml.SequenceStartEvent):
                depth += 1
                if depth > 1:
                    raise TapsterError(f"the value of {fit_message(name)} is a plain value or a list of them, not a list of lists")
            elif isinstance(event, yaml.SequenceEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # not valid YAML: the reader below says where


def parse_params_text(text: str) -> dict:
    """``NAME=VALUE`` lines (values read as plain YAML: a value or a flow list of them) -> dict.
    At most :data:`MAX_PARAMS` lines are read; each value's YAML nodes are counted as they are
    read, at most :data:`MAX_PARAM_NODES`, and anchors, aliases and mappings are refused before
    any data is built.  Raises TapsterError."""
    if len(text) > MAX_PARAMS_TEXT:
        raise TapsterError(f"parameters: at most {MAX_PARAMS_TEXT} characters")
    out = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise TapsterError(f"parameter {fit_message(line.strip())!r} is not NAME=VALUE (e.g. turns=5)")
        if len(out) >= MAX_PARAMS:
            raise TapsterError(f"parameters: at most {MAX_PARAMS}")
        _check_param_yaml(name.strip(), value)
        try:
            out[name.strip()] = load_yaml_text(value, f"param {name.strip()}").data
        except (ValueError, OverflowError, RecursionError) as exc:
            raise TapsterError(f"the value of {fit_message(name.strip())} cannot be read: {fit_message(exc)}") from None
    return out

