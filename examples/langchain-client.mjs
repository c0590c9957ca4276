// LangChain JS against the front: ChatOpenAI keeps no member it does not know, so the proof is
// reached through proofFetch, a wrapper of the fetch LangChain accepts. Chat completions and the
// Responses API, invoke and stream; each proof verified against the keys the server publishes.
//   SVC_URL=http://127.0.0.1:8080 node examples/langchain-client.mjs http://127.0.0.1:8443/v1 "$(cat issue-token.txt)" echo
import { ChatOpenAI } from '@langchain/openai';
import { proofFetch, verifyBundle } from '@svc/core';

const [baseURL, apiKey, model = 'echo'] = process.argv.slice(2);
const base = (process.env.SVC_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const { keys } = await (await fetch(`${base}/api/provenance/pubkey`)).json();

for (const useResponsesApi of [false, true]) {
  const captured = proofFetch(fetch);
  const llm = new ChatOpenAI({ model, apiKey, useResponsesApi, configuration: { baseURL, fetch: captured.fetch } });
  const said = (await llm.invoke('Capital of France?')).text;
  let streamed = '';
  for await (const chunk of await llm.stream('Capital of France?')) streamed += chunk.text;
  const proofs = await captured.settled(); // one per call, in order
  for (const [i, text] of [said, streamed].entries()) {
    const v = await verifyBundle(proofs[i], { trustedKeys: keys });
    const ok = v.verdict.overallOk && v.signerRecognized && proofs[i].answer === text;
    console.log(`${useResponsesApi ? 'responses' : 'chat'} ${i ? 'stream' : 'invoke'}: ${JSON.stringify(text)} proven=${ok}`);
    if (!ok) process.exitCode = 1;
  }
}
