/** The service cannot start for a reason the operator can fix (port in use, unreadable data directory…). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
