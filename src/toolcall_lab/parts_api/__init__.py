"""The Parts API: a fifth wire format, made up for lesson 10, to write an adapter for.

It is not any vendor's API. Its shape follows the family of APIs where a conversation is a
list of *contents* made of *parts* (Google's Gemini API is the best-known member): the
model's role is "model", a function's result goes back in a "user" content, and the model's
name goes in the URL. Everything else (the rules, the ids, the error texts) is the kit's own,
written down in `DOC`, which shows as a formatted page when it is a cell's last value.

    doc      DOC, the API's documentation as markdown: request, reply, errors, examples
    rules    first_problem(body): the first rule a request breaks, named by its JSON path
    server   PartsServer: the API on 127.0.0.1, the model played by a scripted policy;
             decode_request / encode_response / error_body, the server's half of a codec
    client   post(url, body): one request body sent, the reply's JSON back, a refusal
             raised in the API's own words

The client's translators (a transcript into a request body, a reply into a `Turn`) are the
learner's exercise in lesson 10. The worked solution is kept with the answer keys
(`toolcall_lab.checks._worked_providers`, handed out as source text for a teacher's solved
copy), and the lesson's check refuses any adapter built on a class of the kit.
"""

from .client import post
from .doc import DOC
from .rules import first_problem
from .server import ENDPOINT, FINISH_REASONS, PartsServer, decode_request, encode_response, error_body

__all__ = ["DOC", "ENDPOINT", "FINISH_REASONS", "PartsServer", "decode_request", "encode_response",
           "error_body", "first_problem", "post"]
