"""The APIs' rules: what each real API would refuse in a request, in the API's own words.

One module per API, each with one public function, `check_request(body) -> list[Problem]`
(empty when the request looks valid), re-exported by the API's codec module
(`wire.anthropic.check_request`, ...):

    module          checks
    anthropic.py    tool_use and tool_result pairing (after same-role messages merge),
                    empty content, tool names, thinking (its config, its signatures,
                    first in a tool loop), and what each model takes
    responses.py    call ids and outputs, reasoning items and what follows them, sealed
                    `encrypted_content`, tool names, strict schemas, reasoning effort
    chat.py         tool messages answering the calls right before them, empty arrays,
                    tool names, strict schemas, reasoning effort
    ollama.py       the model name and a few options: Ollama checks little else

A rule's text is the API's own error message, word for word where one is on record,
with its source beside it; a text written here in the API's style says so. A provider
runs `check_request` before it sends (so a mistake is caught offline, with the API's
words), and the API double runs it on every request it receives.

Left out: limits only the server knows (context length, rate limits, a model that is
not there), and rules that depend on earlier requests (`previous_response_id`).
"""

__all__: list[str] = []
