# The Python openai package as its documentation uses it, against the front (issue 52): chat
# completions plain, streamed (the usual loop) and through the stream helper; the Responses API
# plain, streamed and through its stream helper; and two errors. Prints what each showed and the
# proof it reached, as JSON, for the test to verify.
import json
import sys

import openai

base, key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base, api_key=key, max_retries=0)
q = [{"role": "user", "content": "Capital of France?"}]
out = {"version": openai.__version__}


def proof_of(obj):
    return (getattr(obj, "model_extra", None) or {}).get("svc_proof")


r = client.chat.completions.create(model="echo", messages=q)
out["plain"] = {"shown": r.choices[0].message.content, "model": r.model, "proof": proof_of(r)}

shown, proof = "", None
for chunk in client.chat.completions.create(model="echo", messages=q, stream=True):
    if chunk.choices:
        shown += chunk.choices[0].delta.content or ""
    proof = proof_of(chunk) or proof
out["streamed"] = {"shown": shown, "proof": proof}

proof = None
with client.chat.completions.stream(model="echo", messages=q) as stream:
    for event in stream:
        if event.type == "chunk":
            proof = proof_of(event.chunk) or proof
    final = stream.get_final_completion()
out["helper"] = {"shown": final.choices[0].message.content, "model": final.model, "proof": proof}

r = client.responses.create(model="echo", input="Capital of France?")
out["responses"] = {"shown": r.output_text, "model": r.model, "proof": proof_of(r)}

shown, proof = "", None
for event in client.responses.create(model="echo", input="Capital of France?", stream=True):
    if event.type == "response.output_text.delta":
        shown += event.delta
    if event.type == "response.completed":
        proof = proof_of(event.response)
out["responses_streamed"] = {"shown": shown, "proof": proof}

with client.responses.stream(model="echo", input="Capital of France?") as stream:
    for event in stream:
        pass
    final = stream.get_final_response()
out["responses_helper"] = {"shown": final.output_text, "model": final.model, "proof": proof_of(final)}

try:
    openai.OpenAI(base_url=base, api_key="not-a-token", max_retries=0).chat.completions.create(model="echo", messages=q)
except openai.AuthenticationError as e:
    out["unauthorized"] = {"status": e.status_code, "code": e.code}
try:
    client.responses.create(model="echo", input="x", previous_response_id="resp_0")
except openai.UnprocessableEntityError as e:
    out["stateful"] = {"status": e.status_code, "code": e.code, "param": e.param}

print(json.dumps(out))
