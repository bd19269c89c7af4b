package db

// SetTicketSpanSlack makes the takings count each booking's tickets on
// its own (a negative slack) or in one read, and returns the undo.
func SetTicketSpanSlack(n int64) (restore func()) {
	old := ticketSpanSlack
	ticketSpanSlack = n
	return func() { ticketSpanSlack = old }
}
