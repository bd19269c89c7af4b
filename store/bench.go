package store

// SalesAudit is a benchmark's database read back after the run, by a
// connection of its own (each driver's AuditSales): what bench reports
// as committed and double-sold.
type SalesAudit struct {
	// Bookings are the bookings really committed.
	Bookings int64
	// DoubleSold counts seats of a show with more than one ticket that
	// is not void (on PostgreSQL also more than one live claim): a seat
	// sold twice. It must be 0.
	DoubleSold int
	// AuditSales counts the audit trail's sale rows: one per booking, so
	// the figure measured paid for them.
	AuditSales int64
}
