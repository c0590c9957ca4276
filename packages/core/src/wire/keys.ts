// The published shape of a receipt key (interface.md ReceiptKey), shared by issuing and verifying.
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';
/**
 * A published receipt public key (interface.md ReceiptKey).
 *
 * @example
 * ```ts
 * const trustedKeys: ReceiptKey[] = (await (await fetch(`${base}/api/provenance/pubkey`)).json()).keys;
 * await verifyBundle(bundle, { trustedKeys });
 * ```
 */
export type ReceiptKey = Static<typeof S.ReceiptKey>;
