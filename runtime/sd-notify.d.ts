/** The part of the sd-notify package (libsystemd's sd_notify) that the lamp uses. */
declare module 'sd-notify' {
  const sd: {
    ready(): void;
    stopping(pid?: number): void;
    watchdog(): void;
    /** The service's WatchdogSec in milliseconds, 0 when the watchdog is off. */
    watchdogInterval(): number;
    sendStatus(text: string): void;
  };
  export default sd;
}
