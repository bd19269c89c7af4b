package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// Tx is one write transaction as the rules see it: its context and clock,
// the shows it changed, and the typed queries of every capability. Each
// capability's queries are a small interface of their own, beside the
// rules that use them.
type Tx interface {
	// Context is the transaction's context.
	Context() context.Context
	// Now is the transaction's time, fixed when it began: every check
	// and every row it writes uses it.
	Now() time.Time
	// Touch records that the transaction changed a show's seats or
	// sales, for the change broker once it committed.
	Touch(showID int64)
	// InsertAudit appends one row to the audit trail in this transaction,
	// so a change and its record commit or roll back together.
	InsertAudit(row AuditRow) error

	ActorTx
	DoorTx
	SignInTx
	RosterTx
	SitesTx
	WaitlistTx
	ShiftTx
	RefundTx
	CancelTx
	ShowCancelTx
	ExchangeTx
	ProgrammeTx
	SetupTx
	PricesTx
	BlocksTx
	ShowLifeTx
	KioskTx
	ReservationTx
	CollectTx
	ItemsTx
	VouchersTx
	ReservationVoucherTx
	SaleItemsTx
	SettingsTx
	TaxTx
	SaleTx
	CustomerTx
	WatchTx
	GiftCardTx
	ReturnsTx
	BooksTx
	ChainTx
}

// Reads are the reads the rules make outside a transaction.
type Reads interface {
	ProgrammeReads
	BookingReads
	ReportReads
	RosterReads
	SitesReads
	WaitlistReads
	AuditReads
	ShiftReads
	ShowCancelReads
	CatalogueReads
	SetupReads
	PriceReads
	ShowLifeReads
	ReservationReads
	ItemReads
	VoucherReads
	ReservationVoucherReads
	GiftCardListReads
	SaleItemsReads
	SettingsReads
	TaxReads
	SaleReads
	CustomerReads
	WatchReads
	GiftCardReads
	ReturnsReads
	BooksReads
}

// ActorTx reads whether someone may still act.
type ActorTx interface {
	// StaffStanding reads a member of staff's role and whether they are
	// disabled; found is false when the row is gone.
	StaffStanding(staffID int64) (role string, disabled, found bool, err error)
	// TerminalRegistered reports whether a terminal is still registered.
	TerminalRegistered(terminalID int64) (bool, error)
}

// CheckActor refuses with booking.ErrWithdrawn an actor whose staff row is
// gone, disabled or now below the role they act with, or whose registered
// terminal was removed. System, the command line and kiosks have neither a
// staff id nor a terminal id and skip both checks.
func CheckActor(tx Tx, actor booking.Actor) error {
	if actor.StaffID != 0 {
		role, disabled, found, err := tx.StaffStanding(actor.StaffID)
		if err != nil {
			return err
		}
		if !found {
			return booking.ErrWithdrawn
		}
		if r, perr := booking.ParseRole(role); disabled || perr != nil || r < actor.Role {
			return booking.ErrWithdrawn
		}
	}
	if actor.TerminalID != 0 {
		ok, err := tx.TerminalRegistered(actor.TerminalID)
		if err != nil {
			return err
		}
		if !ok {
			return booking.ErrWithdrawn
		}
	}
	return nil
}
