// @svc/server: the reference server as a library. Start it (`startServer`), or assemble its parts
// (`assembleServer`) and serve `app.fetch` from another HTTP layer; the svc CLI is built from the same parts.
export { loadConfig, type Config, type RateLimits, type IssueListenerConfig } from './config.js';
export { startServer, VERSION, type Running } from './server.js';
export { assembleServer, type AssembledServer, type AssembleOptions } from './assemble.js';
export type { App } from './app.js';
export type { AppRequest, AppResponse } from './http/types.js';
export { fetchHandler, type FetchHandler, type FetchInfo, type FetchOptions } from './http/fetch.js';
export { HttpError, refusalOf, type HttpErrorCode } from './http/errors.js';
export { openApiDocument } from './openapi.js';
export type { OpenApiDocument, OpenApiOperation } from './http/openapi-doc.js';
export { jsonLogger, levelOf, LOG_LEVELS, type Logger, type LogLevel } from './log.js';
export { nativeCrypto } from './crypto/node.js';
export { openIssuer, issuerSettingsFromEnv, type IssuerSettings, type SvcIssuer } from './issuing/open.js';
export type { IssueInput } from './issuing/issuer.js';
export type { ExportInput, RunInput, TranscriptInput } from './issuing/kinds.js';
