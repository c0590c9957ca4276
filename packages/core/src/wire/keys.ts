// The published shape of a receipt key (interface.md ReceiptKey), shared by issuing and verifying.
/**
 * A published receipt public key (interface.md ReceiptKey).
 *
 * @example
 * ```ts
 * const trustedKeys: ReceiptKey[] = (await (await fetch(`${base}/api/provenance/pubkey`)).json()).keys;
 * await verifyBundle(bundle, { trustedKeys });
 * ```
 */
export interface ReceiptKey {
  key_id: string;
  public_key_hex: string;
  algo: string;
  context: string;
  /** Optional SLH-DSA public key for the diversity signature (wire-format s.3b). */
  slh_public_key_hex?: string;
}
