export function inclusionSteps(index: number, size: number, hashes: string[]): Array<{ side: 'left' | 'right'; hash: string; level: number }> | null;
export function inclusionPicture(index: number, size: number, hashes: string[], rootLabel: string): HTMLElement;
export function headsPicture(older: unknown, newer: unknown, orderOk: boolean | undefined): HTMLElement;
