// The published shapes of a receipt key and a model-plane key, shared by issuing and verifying.
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';
/**
 * A published receipt public key (interface.md ReceiptKey).
 *
 * @example
 * ```ts
 * const { keys: trustedKeys } = (await (await fetch(`${base}/api/provenance/pubkey`)).json()) as { keys: ReceiptKey[] };
 * await verifyBundle(bundle, { trustedKeys });
 * ```
 */
export type ReceiptKey = Static<typeof S.ReceiptKey>;

/**
 * A model-plane key as a bundle's `bridgeKeys` and /v1/provenance/pubkeys list it.
 *
 * @example
 * ```ts
 * const { keys: trustedBridgeKeys } = (await (await fetch(`${base}/v1/provenance/pubkeys`)).json()) as { keys: BridgeKey[] };
 * await verifyBundle(bundle, { trustedKeys, trustedBridgeKeys });
 * ```
 */
export type BridgeKey = Static<typeof S.BridgeKey>;
