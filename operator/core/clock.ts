/** Clock: the only source of "now" for controllers; core functions take `now` as an argument and tests pin it. */

/** Reads the current time. */
export interface Clock {
  now(): Date;
}

/** A clock pinned to `at` that tests advance by hand. */
export class FixedClock implements Clock {
  private at: number;
  constructor(at: Date | string) {
    this.at = new Date(at).getTime();
  }
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}
