export function openapiTypes(): Promise<string>;
export function openapiJson(): string;
