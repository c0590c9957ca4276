export declare const REQUIRED: boolean;
export declare function goLibraries(): 'debian' | 'module-cache' | null;
export declare function present(what: 'chromium' | 'postgres' | 'go'): boolean;
export declare function runs(what: 'chromium' | 'postgres' | 'go'): boolean;
export declare const GO_MODULES: [string, string][];
