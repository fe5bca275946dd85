"""Call every operation of the served OpenAPI document through the client generated from it.

Usage: python scripts/openapi-clients.d/call_every_operation.py BASE_URL KEY OPENAPI_JSON PACKAGE

Run by scripts/openapi-clients with the venv's python, after openapi-python-client generated PACKAGE
from OPENAPI_JSON and it was pip-installed. For every operation under `paths` it imports
PACKAGE.api.<tag>.<operation_id in snake case> and calls its `sync_detailed` with an
AuthenticatedClient (and, for the operations whose `security` is empty, also with a plain Client),
giving each required parameter a real value: keys read from the served lists, `latest` and each
concrete game version, `q=ale`. Operations are called more than once where that reaches other
shapes of answer: every page of each paginated list, each value of the enum query parameters but
`lang` (for which one other language, and all of them on item detail), the oldest game version, and
the variants in EXTRA (`fields`, `expand`, filters).

Each call must answer 200 with a media type its 200 response declares (a bulk export's is
`application/gzip`, a version's pictures' `application/x-tar` and a picture's `image/png` or
`image/webp`, which the generator is told to take as bytes; a picture is named by the pale ale's
`icon_url`); where that is JSON, `.parsed`
must be an instance of a generated model class named in the function's return type (the generated
code parsed the body), and `parsed.to_dict()` must give back the body as served (nothing dropped or
changed by the models). Where the generator made no model (the RSS feed), status and media type are
all that is checked. Every failure is listed at the end, and the exit code is 1 if there was any,
or if an operation of the document was not called.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import re
import sys
import time
import traceback
import typing
import urllib.parse
import urllib.request

import httpx

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# Further calls per path template, on top of the plain ones: {query parameter: value}. A template
# named here but missing from the document is a failure, so that this list follows the document.
EXTRA: dict[str, list[dict[str, object]]] = {
    "/v1/items": [
        {"fields": "id,name"},
        {"fields": "slug,tags,base_price,price_per_serving,introduced_in"},
        {"include_unlisted": True, "sort": "id"},
        {"sort": "-price,name"},
        {"can_be_sold": True, "can_be_aged": True},
        {"ids": "1000,3017,-1"},
    ],
    "/v1/items/{key}": [
        {"expand": "recipes,shops,groups"},
        {"expand": "groups"},
        {"fields": "id,name,description"},
        {"fields": "id,recipes,shops", "expand": "recipes,shops"},
    ],
    "/v1/recipes": [
        {"fields": "id,slug,name,output"},
        {"include_replaced": True},
        {"sort": "-time"},
    ],
    "/v1/crops": [{"reusable": True}, {"sort": "-days,name"}],
    "/v1/fish": [{"rarity": 0}],
    # Between them, every way a search hit can match (`matched.how`).
    "/v1/search": [{"q": "barley", "limit": 50}, {"q": "alnut", "limit": 50}, {"q": "barlei"}],
}


def fail(failures: list[str], what: str, message: str) -> None:
    failures.append(f"{what}: {message}")


def get_json(base: str, key: str, path: str) -> typing.Any:
    """A GET with plain urllib, to find the keys to call with (not through the generated client)."""
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def snake(name: str) -> str:
    """The generator's module name of an operation id: words split at capitals, and letters from
    the digits after them (`getAssetsBySha256ByName` is `get_assets_by_sha_256_by_name`)."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", name)
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"(?<=[A-Za-z])(?=[0-9])", "_", name)
    return name.strip("_").lower()


def squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def resolve(document: dict, node: typing.Any) -> typing.Any:
    while isinstance(node, dict) and "$ref" in node:
        target: typing.Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def first_difference(left: typing.Any, right: typing.Any, pointer: str = "") -> str | None:
    """The JSON pointer of the first place where two JSON values differ, with both sides."""
    if isinstance(left, dict) and isinstance(right, dict):
        for name in list(left) + [n for n in right if n not in left]:
            if name not in right:
                return f"{pointer}/{name}: only in to_dict() ({json.dumps(left[name])[:80]})"
            if name not in left:
                return f"{pointer}/{name}: dropped by the model (served {json.dumps(right[name])[:80]})"
            found = first_difference(left[name], right[name], f"{pointer}/{name}")
            if found:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return f"{pointer}: {len(left)} elements in to_dict(), {len(right)} served"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, f"{pointer}/{index}")
            if found:
                return found
        return None
    if left != right or type(left) is not type(right):
        return f"{pointer or '/'}: to_dict() {json.dumps(left)[:80]}, served {json.dumps(right)[:80]}"
    return None


class Operation:
    def __init__(self, document: dict, package: str, path: str, method: str, spec: dict) -> None:
        self.path, self.method, self.spec = path, method, spec
        self.operation_id = spec.get("operationId") or ""
        self.label = f"{method.upper()} {path} ({self.operation_id or 'no operationId'})"
        self.parameters = [resolve(document, p) for p in spec.get("parameters", [])]
        self.parameters += [
            resolve(document, p)
            for p in document["paths"][path].get("parameters", [])
            if resolve(document, p)["name"] not in {q["name"] for q in self.parameters}
        ]
        self.by_name = {p["name"]: p for p in self.parameters}
        self.public = spec.get("security", document.get("security")) in ([], [{}], None)
        ok = resolve(document, spec.get("responses", {}).get("200", {}))
        self.media_types = list(ok.get("content", {}))
        self.json_body = any(m == "application/json" or m.endswith("+json") for m in self.media_types)
        self.error_schema_names = {
            schema["$ref"].rsplit("/", 1)[-1]
            for status, response in spec.get("responses", {}).items()
            if not status.startswith("2")
            for content in resolve(document, response).get("content", {}).values()
            for schema in [content.get("schema", {})]
            if isinstance(schema, dict) and "$ref" in schema
        }
        tag = (spec.get("tags") or ["default"])[0]
        self.module_name = f"{package}.api.{snake(tag)}.{snake(self.operation_id)}"
        self.function = None
        self.models: tuple[type, ...] = ()

    def bind(self, package: str) -> str | None:
        """Import the generated function; None, or why it cannot be called."""
        if not self.operation_id:
            return "no operationId"
        try:
            module = importlib.import_module(self.module_name)
        except ImportError as error:
            return f"no generated module {self.module_name}: {error}"
        self.function = getattr(module, "sync_detailed", None)
        if self.function is None:
            return f"{self.module_name} has no sync_detailed"
        self.signature = inspect.signature(self.function)
        self.hints = typing.get_type_hints(self.function)
        self.python_names: dict[str, str] = {}
        for parameter in self.parameters:
            matches = [n for n in self.signature.parameters if squash(n) == squash(parameter["name"])]
            if len(matches) != 1:
                return f"parameter {parameter['name']!r} is not one argument of sync_detailed ({matches})"
            self.python_names[parameter["name"]] = matches[0]
        returned = self.hints.get("return")
        inner = typing.get_args(returned)[0] if typing.get_args(returned) else typing.Any
        members = typing.get_args(inner) or (inner,)
        self.models = tuple(
            m
            for m in members
            if inspect.isclass(m)
            and m.__module__.startswith(f"{package}.models.")
            and m.__name__ not in self.error_schema_names
        )
        if self.json_body and not self.models:
            return f"the document gives 200 a JSON body but sync_detailed returns no model for it ({returned})"
        return None

    def arguments(self, values: dict[str, object]) -> dict[str, object]:
        """Generated-code arguments for {document parameter name: value}: enums become the generated enum."""
        arguments = {}
        for name, value in values.items():
            python_name = self.python_names[name]
            hint = self.hints.get(python_name)
            enums = [t for t in (typing.get_args(hint) or (hint,)) if inspect.isclass(t) and issubclass(t, enum.Enum)]
            arguments[python_name] = enums[0](value) if enums else value
        return arguments


def main() -> int:
    base, key, document_path, package = sys.argv[1:5]
    started = time.monotonic()
    with open(document_path, encoding="utf-8") as file:
        document = json.load(file)
    client_module = importlib.import_module(f"{package}.client")
    authenticated = client_module.AuthenticatedClient(base_url=base, token=key, timeout=httpx.Timeout(30.0))
    anonymous = client_module.Client(base_url=base, timeout=httpx.Timeout(30.0))

    failures: list[str] = []
    operations = [
        Operation(document, package, path, method, spec)
        for path, item in document["paths"].items()
        for method, spec in item.items()
        if method in METHODS
    ]
    for template in EXTRA:
        if template not in document["paths"]:
            fail(failures, "EXTRA in call_every_operation.py", f"{template} is not a path of the document")

    # ------------------------------------------------------------ real values for the parameters
    versions = [v["version"] for v in get_json(base, key, "/v1/versions")["data"]]
    older = [v for v in versions if v != versions[0]] or versions
    oldest = older[-1]
    keys: dict[str, list[str]] = {}

    def sample(records: list[dict]) -> list[str]:
        """First, middle and last record; by key, slug or id in turn, so that each form a record has is used."""
        picked = []
        for turn, record in enumerate(records[i] for i in sorted({0, len(records) // 2, len(records) - 1})):
            forms = [str(record[f]) for f in ("key", "slug", "id") if record.get(f) is not None]
            if forms:
                picked.append(forms[turn % len(forms)])
        return picked

    areas = sorted({op.path.split("/")[2] for op in operations if "{key}" in op.path})
    for area in areas:
        if area == "ingredient-groups":  # no list of its own: the groups that items fill
            records = [
                g
                for item in get_json(base, key, "/v1/items?limit=30")["data"]
                for g in get_json(base, key, f"/v1/items/{item['id']}?expand=groups")["data"].get("groups", [])
            ]
        else:
            list_operation = document["paths"].get(f"/v1/{area}", {}).get("get", {})
            takes_limit = any(resolve(document, p)["name"] == "limit" for p in list_operation.get("parameters", []))
            records = get_json(base, key, f"/v1/{area}" + ("?limit=100" if takes_limit else ""))["data"]
        keys[area] = sample(records)
    # Items of other shapes: one that can be aged, first, as the variants (`aging` on its price) are
    # called with the first key; the best-paid product; an unlisted item.
    keys["items"][:0] = [i["slug"] for i in get_json(base, key, "/v1/items?can_be_aged=true&limit=1")["data"]]
    keys["items"].append(get_json(base, key, "/v1/rankings/products?limit=1")["data"][0]["item"]["slug"])
    unlisted = [
        i for i in get_json(base, key, "/v1/items?include_unlisted=true&sort=id&limit=100")["data"] if i.get("unlisted")
    ]
    keys["items"] += [str(unlisted[0]["id"])] if unlisted else []
    for area, values in keys.items():
        if not values:
            fail(failures, f"/v1/{area}", "no records to take keys from")
    # A picture is named by the hash and the file name of an `icon_url`.
    icon_url = get_json(base, key, "/v1/items/pale-ale")["data"]["icon_url"]
    sha256, name = icon_url.split("/assets/", 1)[1].split("/", 1)
    picture = {"sha256": sha256, "name": urllib.parse.unquote(name)}
    print(f"keys: {json.dumps(keys)}")
    print(f"versions: {versions}")

    # ------------------------------------------------------------ the calls
    calls: list[tuple[Operation, dict[str, object], object, bool]] = []  # ..., walk every page
    for op in operations:
        why = op.bind(package)
        if why:
            fail(failures, op.label, why)
            continue
        required = {}
        path_variants: list[dict[str, object]] = [{}]
        for parameter in op.parameters:
            name, where = parameter["name"], parameter["in"]
            if where == "path" and name == "key":
                path_variants = [{**v, "key": k} for v in path_variants for k in keys.get(op.path.split("/")[2], [])]
            elif where == "path" and name == "version":
                path_variants = [{**v, "version": version} for v in path_variants for version in ["latest", *versions]]
            elif where == "path" and name == "lang":
                path_variants = [{**v, "lang": lang} for v in path_variants for lang in ["en", "de"]]
            elif where == "path" and name in picture:
                path_variants = [{**v, name: picture[name]} for v in path_variants]
            elif name == "q":
                required["q"] = "ale"
            elif parameter.get("required"):
                fail(failures, op.label, f"no value for the required {where} parameter {name!r}")
        plain = [{**v, **required} for v in path_variants]
        if not plain:
            fail(failures, op.label, "no keys to call it with")
            continue
        first = plain[0]
        variants = list(plain)
        for name, parameter in op.by_name.items():
            schema = resolve(document, parameter.get("schema", {}))
            if parameter["in"] != "query":
                continue
            if name == "lang":
                languages = schema.get("enum", ["de"])
                chosen = (
                    languages
                    if op.path == "/v1/items/{key}"
                    else [languages[1] if len(languages) > 1 else languages[0]]
                )
                variants += [{**first, "lang": language} for language in chosen]
            elif "enum" in schema:
                variants += [{**first, name: value} for value in schema["enum"]]
            elif name == "version" and "{" not in op.path:
                variants.append({**first, "version": oldest})
            elif name == "from":
                variants.append({**first, "from": oldest})
        variants += [{**first, **extra} for extra in EXTRA.get(op.path, [])]
        calls += [(op, values, authenticated, False) for values in variants]
        if op.public:
            calls.append((op, first, anonymous, False))
        # Every page of a paginated list, at the largest page size.
        if {"limit", "offset"} <= set(op.by_name):
            limit = resolve(document, op.by_name["limit"].get("schema", {})).get("maximum", 100)
            calls += [(op, {**values, "limit": limit}, authenticated, True) for values in plain]

    called: set[str] = set()
    counts: dict[str, int] = {}
    records_parsed = 0

    def run(op: Operation, values: dict[str, object], client: object) -> typing.Any:
        nonlocal records_parsed
        what = f"{op.label} {json.dumps(values, sort_keys=True)}" + ("" if client is authenticated else " without key")
        counts[op.label] = counts.get(op.label, 0) + 1
        called.add(op.label)
        try:
            response = op.function(client=client, **op.arguments(values))
        except Exception as error:  # the generated code raised: it could not send or parse
            fail(
                failures,
                what,
                "".join(traceback.format_exception_only(error)).strip()
                + "\n      at "
                + traceback.extract_tb(error.__traceback__)[-1].filename.split("/site-packages/")[-1]
                + f":{traceback.extract_tb(error.__traceback__)[-1].lineno}",
            )
            return None
        if response.status_code != 200:
            fail(failures, what, f"status {int(response.status_code)}: {response.content[:300]!r}")
            return None
        media_type = response.headers.get("content-type", "").split(";")[0].strip()
        if media_type not in op.media_types:
            fail(failures, what, f"content type {media_type!r}, the document gives 200 {op.media_types}")
        if not op.json_body:
            return None
        try:
            body = json.loads(response.content)
        except ValueError as error:
            fail(failures, what, f"the body is not JSON: {error}")
            return None
        if response.parsed is None:
            fail(failures, what, "parsed is None")
        elif not isinstance(response.parsed, op.models):
            fail(
                failures,
                what,
                f"parsed is a {type(response.parsed).__name__}, not one of {[m.__name__ for m in op.models]}",
            )
        else:
            if isinstance(body, dict) and isinstance(body.get("data"), list):
                records_parsed += len(body["data"])
            difference = first_difference(response.parsed.to_dict(), body)
            if difference:
                fail(failures, what, f"to_dict() of the parsed answer differs from the body at {difference}")
        return body

    for op, values, client, walk in calls:
        if not walk:
            run(op, values, client)
            continue
        offset = 0
        while True:  # until the page that reaches pagination.total (or offset's maximum, 10000)
            body = run(op, {**values, "offset": offset}, client)
            total = body.get("pagination", {}).get("total", 0) if isinstance(body, dict) else 0
            offset += int(values["limit"])
            if offset >= total or offset > 10000:
                break

    for op in operations:
        if op.label not in called:
            fail(failures, op.label, "not called")

    print()
    for op in operations:
        print(f"  {counts.get(op.label, 0):4d} calls  {op.label}")
    elapsed = time.monotonic() - started
    print(
        f"\n{len(operations)} operations, {sum(counts.values())} calls, {records_parsed} list records parsed, "
        f"{len(failures)} failures, {elapsed:.1f} s"
    )
    if failures:
        print(f"\nFAILED: {len(failures)} failures:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
