export function scittCoseJson(): string;
