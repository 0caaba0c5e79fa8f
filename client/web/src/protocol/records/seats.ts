/** The seats of an online match by number, as hand records and gin audit name them:
 * apart from records.ts so that the board's page can name them without loading the
 * fair deal's crypto (gin/protocol/records/records.py's SEATS). */
export const SEATS = ["host", "guest"] as const;
