"""What OpenAI's two APIs (Responses, Chat Completions) share, client and server: their one home.

The two APIs are two folders (`wire/responses/`, `wire/chat/`), as every API is; what
OpenAI does the same way on both is written once here, a file per job as in an API's
folder, and never imports either folder:

    client.py   what both client halves write alike: a call's arguments as JSON text
                (`arguments_json`), the prompt cache's request fields (`prompt_cache_fields`)
    rules.py    what both refuse alike, in OpenAI's words: reasoning efforts
                (`invalid_effort`, `unsupported_reasoning`), function parameters that are not
                an object (`parameters_problems`), strict schemas left open
                (`strict_schema_problems`)
    shape.py    how OpenAI's validator words a misshapen body (`shape_problem`), and the
                parts both shapes share (`PART_TEXT`, `FUNCTION`, `choice`, ...)
    server.py   `OpenAIServer`, the base of both server halves: one error shape
                (`openai_error_body`), the injected failures' words (`fault`), "call_..."
                ids, the request id header, the model list and the automatic prompt cache

Each name is imported from the file that defines it (`from .._openai.rules import
invalid_effort`), as everywhere in the kit.
"""

__all__: list[str] = []  # each name is its file's: see above
