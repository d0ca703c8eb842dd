"""Shared helpers for the PetClinic example scripts (Python 3, standard
library only).

The scripts speak the Tonomi custom-components protocol: read one YAML
document on stdin, print one YAML document of update commands on stdout.
The standard library has no YAML module, so this file reads the subset of
YAML that protocol documents use (block maps and lists, plain and quoted
scalars, literal blocks, simple flow collections) and writes YAML whose
strings are JSON-quoted, which every YAML parser reads.

Instances live in a local registry folder: $XOSPLAN_REGISTRY, or
.registry beside the example's manifests.
"""

import hashlib
import json
import os
import re
import sys

EXAMPLE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class YAMLError(Exception):
    pass


# ---------------------------------------------------------------- reading

def _strip_comment(line):
    """Drops a trailing comment that is outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _scalar(text):
    text = text.strip()
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise YAMLError("unterminated quoted string: " + text)
        return text[1:-1].replace("''", "'")
    if text.startswith("{") or text.startswith("["):
        return _flow(text)
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return int(text)
    if re.fullmatch(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", text):
        return float(text)
    return text


def _split_flow(body):
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(body):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p.strip() for p in parts if p.strip()]


def _flow(text):
    if text[-1] != {"[": "]", "{": "}"}[text[0]]:
        raise YAMLError("unclosed flow collection: " + text)
    try:
        return json.loads(text)
    except ValueError:
        pass
    body = text[1:-1]
    if text.startswith("["):
        return [_scalar(p) for p in _split_flow(body)]
    out = {}
    for p in _split_flow(body):
        key, sep, value = p.partition(": ")
        if not sep:
            key, value = p.rstrip(":"), ""
        out[str(_scalar(key))] = _scalar(value)
    return out


def _key_value(content):
    """Splits "key: value" (the key may be quoted)."""
    if content[0] in "'\"":
        end = content.index(content[0], 1)
        key, rest = _scalar(content[: end + 1]), content[end + 1 :]
        if not rest.startswith(":"):
            raise YAMLError("expected ':' after key in: " + content)
        return str(key), rest[1:].strip()
    m = re.match(r"^([^:]*?):(\s+|$)(.*)$", content)
    if not m:
        raise YAMLError("expected 'key: value' in: " + content)
    return m.group(1), m.group(3)


class _Reader:
    def __init__(self, text):
        self.lines = []
        raw = text.splitlines()
        i = 0
        while i < len(raw):
            line = raw[i]
            if line.strip() in ("---", "...") or not _strip_comment(line).strip():
                i += 1
                continue
            indent = len(line) - len(line.lstrip(" "))
            content = _strip_comment(line).strip()
            block = re.search(r"(^|:\s+|^-\s+)([|>])[-+]?$", content)
            if block:
                # A literal or folded block scalar: gather its lines.
                body, j = [], i + 1
                while j < len(raw) and (not raw[j].strip() or len(raw[j]) - len(raw[j].lstrip(" ")) > indent):
                    body.append(raw[j])
                    j += 1
                strip = min((len(b) - len(b.lstrip(" ")) for b in body if b.strip()), default=0)
                joiner = "\n" if block.group(2) == "|" else " "
                value = joiner.join(b[strip:] for b in body).rstrip("\n")
                if not content.endswith("-"):
                    value += "\n"
                self.lines.append((indent, content[: block.start(2)].rstrip() + " " + json.dumps(value)))
                i = j
                continue
            self.lines.append((indent, content))
            i += 1
        self.pos = 0

    def parse(self):
        if not self.lines:
            return None
        value = self.block(self.lines[0][0])
        if self.pos != len(self.lines):
            raise YAMLError("unexpected indentation at: " + self.lines[self.pos][1])
        return value

    def block(self, indent):
        if self.lines[self.pos][1].startswith("- ") or self.lines[self.pos][1] == "-":
            return self.sequence(indent)
        return self.mapping(indent)

    def nested(self, indent, allow_same_seq):
        """The value of an entry whose text ended at the ':' or '-'."""
        if self.pos < len(self.lines):
            nind, ncontent = self.lines[self.pos]
            if nind > indent:
                return self.block(nind)
            if allow_same_seq and nind == indent and (ncontent.startswith("- ") or ncontent == "-"):
                return self.sequence(nind)
        return None

    def mapping(self, indent):
        out = {}
        while self.pos < len(self.lines):
            ind, content = self.lines[self.pos]
            if ind < indent or content.startswith("- ") or content == "-":
                break
            if ind > indent:
                raise YAMLError("unexpected indentation at: " + content)
            key, value = _key_value(content)
            self.pos += 1
            out[str(_scalar(key)) if key else ""] = _scalar(value) if value else self.nested(indent, True)
        return out

    def sequence(self, indent):
        out = []
        while self.pos < len(self.lines):
            ind, content = self.lines[self.pos]
            if ind != indent or not (content.startswith("- ") or content == "-"):
                break
            item = content[1:].strip()
            if not item:
                self.pos += 1
                out.append(self.nested(indent, False))
            elif re.match(r"^[^'\"{\[][^:]*:(\s|$)", item) or re.match(r"^['\"].*['\"]:(\s|$)", item):
                # "- key: value" starts a map whose keys sit two columns in.
                self.lines[self.pos] = (indent + 2, item)
                out.append(self.mapping(indent + 2))
            else:
                self.pos += 1
                out.append(_scalar(item))
        return out


def load(text):
    """Parses one YAML document of the protocol's subset."""
    return _Reader(text).parse()


def read_input():
    doc = load(sys.stdin.read())
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise YAMLError("the input document must be a map")
    return doc


# ---------------------------------------------------------------- writing

def _plain_ok(s):
    return bool(re.fullmatch(r"[A-Za-z_$/][A-Za-z0-9_./$-]*", s)) and s not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n", "~")


def _key(k):
    k = str(k)
    return k if _plain_ok(k) else json.dumps(k)


def _dump(value, indent, out):
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            out.append(pad + "{}")
        for k in sorted(value):
            v = value[k]
            if isinstance(v, (dict, list)) and v:
                out.append(pad + _key(k) + ":")
                _dump(v, indent + 1, out)
            else:
                out.append(pad + _key(k) + ": " + _inline(v))
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)) and v:
                sub = []
                _dump(v, indent + 1, sub)
                out.append(pad + "- " + sub[0].lstrip())
                out.extend(sub[1:])
            else:
                out.append(pad + "- " + _inline(v))
    else:
        out.append(pad + _inline(value))


def _inline(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return json.dumps(str(v))


def dump(doc):
    out = []
    _dump(doc, 0, out)
    return "\n".join(out) + "\n"


def emit(doc):
    sys.stdout.write(dump(doc))
    sys.stdout.flush()


# ---------------------------------------------------------------- registry

def registry(kind):
    """The folder holding one JSON file per instance of a kind."""
    root = os.environ.get("XOSPLAN_REGISTRY") or os.path.join(EXAMPLE_DIR, ".registry")
    path = os.path.join(root, kind)
    os.makedirs(path, exist_ok=True)
    return path


def _file(kind, natural_id):
    if not re.fullmatch(r"[A-Za-z0-9._-]+", natural_id) or natural_id.startswith("."):
        raise ValueError("not a natural id: %r" % natural_id)
    return os.path.join(registry(kind), natural_id + ".json")


def save(kind, natural_id, record):
    path = _file(kind, natural_id)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, sort_keys=True, indent=2)
    os.replace(tmp, path)


def get(kind, natural_id):
    try:
        with open(_file(kind, natural_id)) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def remove(kind, natural_id):
    try:
        os.remove(_file(kind, natural_id))
    except FileNotFoundError:
        pass


def list_ids(kind):
    return sorted(n[: -len(".json")] for n in os.listdir(registry(kind)) if n.endswith(".json"))


def natural_id(prefix, instance_id):
    """A stable natural id for a launch request, so that a repeated launch
    of the same instance finds the same record (launch is idempotent)."""
    return prefix + hashlib.sha1(str(instance_id).encode()).hexdigest()[:8]


def status(active=False, converging=False, failed=False, message=None):
    flags = {"status.flags.active": active, "status.flags.converging": converging, "status.flags.failed": failed}
    if message is not None:
        flags["status.message"] = message
    return {"$set": flags}


def main(fn):
    """Runs a script body; a failure is reported on stderr with exit 1."""
    try:
        emit(fn(read_input()))
    except (YAMLError, ValueError, OSError) as e:
        sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), e))
        sys.exit(1)


# ------------------------------------------------- shared script bodies

def destroy_all(kind, doc):
    """Forgets every named instance; all flags false means destroyed."""
    out = {}
    for nid in sorted(doc.get("instances") or {}):
        remove(kind, nid)
        out[nid] = {"status": {"flags": {"active": False, "converging": False, "failed": False}}}
    return {"instances": out}


def discover_all(kind, doc):
    """Reports every instance of the registry with its display name."""
    out = {}
    for nid in list_ids(kind):
        rec = get(kind, nid) or {}
        out[nid] = {"name": rec.get("name", nid)}
    return {"instances": out}


def check_all(kind, doc, signals):
    """Health check: active with fresh signals when the registry has the
    instance, failed when it has vanished."""
    out = {}
    for nid in sorted(doc.get("instances") or {}):
        rec = get(kind, nid)
        if rec is None:
            out[nid] = status(failed=True, message="%s %s is not in the registry" % (kind, nid))
            continue
        upd = signals(nid, rec)
        upd.update(status(active=True))
        out[nid] = upd
    return {"instances": out}
