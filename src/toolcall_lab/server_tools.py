"""Tools you don't run: what a provider's own tools (web search) leave in a conversation.

Some tools run on the provider's side, inside one reply: you offer Anthropic's
`web_search` tool (or OpenAI's `web_search` in the Responses API), the model decides
to search, the provider searches, and the model reads the results and answers, all
before the reply comes back. The reply then carries what happened:

    Anthropic    server_tool_use {id, name, input}        -> ServerToolCall
                 web_search_tool_result {tool_use_id, ...} -> ServerToolResult
                 usage.server_tool_use.web_search_requests -> Usage.web_search_requests
    Responses    web_search_call {id, status, action}      -> ServerToolCall
                 (one item per search; the results are not returned as an item)

Your loop must not run them: the provider already did, the result (if any) is in the
same reply, and there is no local tool of that name to find. `run_agent` looks only at
`Message.tool_calls`, which holds your tools' calls and never a `ServerToolCall`. The
blocks go back on the next request exactly as they came (the encrypted page text in a
search result is what the model reads next time), and only to the provider that made
them. Each search is billed by the search as well as by the tokens of its results
(`models.SERVER_TOOL_FEES`, added by `cost.cost_of`).

`web_search(query, results)` builds the two blocks for a scripted model, so a lesson
can show a search offline: the API double spells them each API's way.

Left out: web fetch, code execution and the other server tools (their blocks are read
and replayed the same way, but not scripted), citations inside the answer's text, and
`pause_turn` continuations beyond what `run_agent` already does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .blocks import ServerToolCall, ServerToolResult

__all__ = ["results_of", "search_digest", "web_search"]


def search_digest(results: Sequence[Mapping[str, object]]) -> str:
    """The readable text of some search results: one "title <url>" line each.

    >>> print(search_digest([{"title": "Paris forecast", "url": "https://example.com/paris"}]))
    Paris forecast <https://example.com/paris>
    """
    return "\n".join(f"{item.get('title', '')} <{item.get('url', '')}>" for item in results)


def web_search(query: str,
               results: Sequence[tuple[str, str]] = ()) -> tuple[ServerToolCall, ServerToolResult]:
    """A web search a scripted model runs on "the provider's side": its call and its result.

    `results` are (title, url) pairs. The blocks belong to no provider yet (`provider`
    None); the scripted provider numbers the call (`srvtoolu_01`, ...) and the API double
    spells both the API's way. Put them in a reply before the answer that uses them:

    >>> search, found = web_search("weather Paris", [("Paris forecast", "https://example.com/paris")])
    >>> search, found
    (ServerToolCall('', 'web_search', {'query': 'weather Paris'}), \
ServerToolResult('', 'Paris forecast <https://example.com/paris>'))
    """
    listed = [{"title": title, "url": url} for title, url in results]
    return (ServerToolCall("", "web_search", {"query": query}),
            ServerToolResult("", search_digest(listed), opaque={"results": listed}))


def results_of(block: ServerToolResult) -> list[dict[str, str]]:
    """The (title, url) results a scripted `ServerToolResult` holds, as dicts ([] if none).

    >>> results_of(web_search("q", [("T", "https://t.example")])[1])
    [{'title': 'T', 'url': 'https://t.example'}]
    """
    listed = block.opaque.get("results") if block.provider is None else None
    if not isinstance(listed, list):
        return []
    return [{"title": str(item.get("title", "")), "url": str(item.get("url", ""))}
            for item in listed if isinstance(item, Mapping)]
