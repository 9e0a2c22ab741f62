export interface RateLimitTable {
  bucket_key: string;
  /** Start of the fixed window (epoch-aligned multiple of its length). */
  window_start: Date;
  count: number;
  /** End of the window: after it the row is dead and the sweep deletes it. */
  expires_at: Date;
}

export interface RateLimitTables {
  rate_limits: RateLimitTable;
}
