package booking

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. The UI maps each to how it talks to a clerk; the CLI maps
// each to an exit code.
const (
	EConflict  = "conflict"
	ENotFound  = "not_found"
	EInvalid   = "invalid"
	EForbidden = "forbidden"
	EExpired   = "expired"
	EInternal  = "internal"
	// EDiskFull: the disk holding the database is full; nothing was
	// written, and the same action works once space is freed.
	EDiskFull = "disk_full"
	// EDamaged: the database file is damaged; restore a backup.
	EDamaged = "damaged"
	// EUnavailable: the database server cannot be reached (PostgreSQL
	// down, restarting or cut off); the same call works once it is back.
	EUnavailable = "unavailable"
)

// Error is a domain error: a code a program can branch on and a message fit
// for a clerk's screen. Internal details never go in Message; they are
// logged where the error is translated.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrStaleStatus is wrapped by the error a compare-and-set status move
// returns when the row was no longer in the status the caller expected.
var ErrStaleStatus = errors.New("stale status")

// StaleError reports a status move that lost its compare-and-set.
type StaleError struct {
	What    string // "booking BO-7KQ2X9TD"
	Current string // the status it has now
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s is already %s", e.What, e.Current)
}

func (e *StaleError) Unwrap() error { return ErrStaleStatus }

// SeatsTakenError is the clash: some seats asked for are held or sold by
// someone else. Suggestions are the free blocks of the same size nearest the
// first taken seat, best first, computed on the state the transaction saw.
type SeatsTakenError struct {
	Taken       []Seat
	Suggestions [][]Seat

	// OutOfSale says the seats were blocked or kept as house seats, not
	// sold or held: the banner says so instead of "just taken".
	OutOfSale bool
}

func (e *SeatsTakenError) Error() string { return e.Message() }

// TakenLabels returns the taken seats' labels.
func (e *SeatsTakenError) TakenLabels() []string { return Labels(e.Taken) }

// SuggestionLabels returns each suggestion's seat labels.
func (e *SeatsTakenError) SuggestionLabels() [][]string {
	out := make([][]string, len(e.Suggestions))
	for i, s := range e.Suggestions {
		out[i] = Labels(s)
	}
	return out
}

// Message is the banner a clerk reads: "G7 was just taken — G8 and G9 are
// free next to it".
func (e *SeatsTakenError) Message() string {
	taken := joinAnd(e.TakenLabels())
	verb := "was"
	if len(e.Taken) > 1 {
		verb = "were"
	}
	msg := fmt.Sprintf("%s %s just taken", taken, verb)
	if e.OutOfSale {
		verb = "is"
		if len(e.Taken) > 1 {
			verb = "are"
		}
		msg = fmt.Sprintf("%s %s not for sale (blocked or a house seat)", taken, verb)
	}
	if len(e.Suggestions) == 0 {
		return msg + " — nothing of that size is free nearby"
	}
	first := e.Suggestions[0]
	if len(first) == 1 {
		return fmt.Sprintf("%s — %s is free next to it", msg, first[0].Label)
	}
	return fmt.Sprintf("%s — %s are free next to it", msg, joinAnd(Labels(first)))
}

// Labels lists the seats' labels, in order.
func Labels(seats []Seat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = s.Label
	}
	return out
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// ErrorCode returns the code of err: the code of a domain *Error, conflict
// for a clash or a stale status, internal for anything else.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	var taken *SeatsTakenError
	var stale *StaleError
	switch {
	case errors.As(err, &taken), errors.As(err, &stale):
		return EConflict
	case errors.As(err, &e):
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the text to show a person. Errors that are not
// domain errors read "Internal error." so no detail leaks onto a screen.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	var taken *SeatsTakenError
	var stale *StaleError
	switch {
	case errors.As(err, &taken):
		return taken.Message()
	case errors.As(err, &stale):
		return stale.Error()
	case errors.As(err, &e):
		return e.Message
	}
	return "Internal error."
}
