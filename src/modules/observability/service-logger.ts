import { Injectable, LoggerService } from '@nestjs/common';
import pino, { type Level, type Logger } from 'pino';
import { AppConfig } from '../../config/app-config';
import { SecretRedactor } from './secret-redaction';

/** Nest's start-up lines (one per module and route, ~95): at debug, so that at info they do not bury the banner. */
const NEST_STARTUP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * The service's one logger: JSON lines on stdout, for Nest, for the code's own `Logger`s and for
 * the access log (requestLogging). Credentials never reach a line: every line, whatever wrote it,
 * has anything shaped like an API key and the admin token replaced as it is written.
 */
@Injectable()
export class ServiceLogger implements LoggerService {
  readonly secrets: SecretRedactor;
  readonly pino: Logger;

  constructor(config: AppConfig) {
    this.secrets = new SecretRedactor(config.adminToken);
    this.pino = pino({ level: config.logLevel, hooks: { streamWrite: (line) => this.secrets.redact(line) } });
  }

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && NEST_STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * Nest's `Logger` calls with the message, then what the caller gave (a message after an object,
   * a stack after a text), then its context (the logger's name) last.
   */
  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = rest.length > 0 && typeof rest.at(-1) === 'string' ? rest.pop() : undefined;
    const text = rest.find((param): param is string => typeof param === 'string');
    if (message instanceof Error) {
      this.pino[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ context, ...message }, text);
    } else {
      this.pino[level]({ context, ...(text === undefined ? {} : { stack: text }) }, String(message));
    }
  }
}
