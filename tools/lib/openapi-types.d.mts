export function openapiTypes(): Promise<string>;
