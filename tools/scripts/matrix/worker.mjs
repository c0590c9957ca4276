// Entry for workerd: the smoke result as the body of any request.
import { smoke } from './smoke.mjs';
export default {
  async fetch() {
    // Workers freeze the clock during a request; Date.now still advances across awaits here.
    return new Response(JSON.stringify(await smoke(() => Date.now())));
  },
};
