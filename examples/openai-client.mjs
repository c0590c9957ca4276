// The official openai package against the front, as its documentation uses it, with the proof read
// off what it returns: a chat completion, the usual streamed loop, a Responses API response and the
// responses.stream() helper. Each proof is verified against the keys the server publishes.
//   SVC_URL=http://127.0.0.1:8080 node examples/openai-client.mjs http://127.0.0.1:8443/v1 "$(cat issue-token.txt)" echo
import { proofOf, verifyBundle } from '@svc/core';
import OpenAI from 'openai';

const [baseURL, apiKey, model = 'echo'] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey });
const messages = [{ role: 'user', content: 'Capital of France?' }];

const completion = await client.chat.completions.create({ model, messages });
const plain = proofOf(completion); // the bundle over completion.choices[0].message.content

let streamed;
const stream = await client.chat.completions.create({ model, messages, stream: true });
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content || '');
  streamed = proofOf(chunk) ?? streamed; // the last chunk before [DONE] carries it
}
process.stdout.write('\n');

const response = await client.responses.create({ model, input: 'Capital of France?' });
const responded = proofOf(response); // over response.output_text

const helper = client.responses.stream({ model, input: 'Capital of France?' });
const helped = proofOf(await helper.finalResponse());

const base = (process.env.SVC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const { keys } = await (await fetch(`${base}/api/provenance/pubkey`)).json();
for (const [name, proof] of Object.entries({ plain, streamed, responded, helped })) {
  const v = await verifyBundle(proof, { trustedKeys: keys });
  console.log(`${name}: ${JSON.stringify(proof?.answer)} overallOk=${v.verdict.overallOk} signerRecognized=${v.signerRecognized}`);
  if (!v.verdict.overallOk || !v.signerRecognized) process.exitCode = 1;
}
