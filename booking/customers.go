package booking

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Customer accounts and the film watchlist. A customer is a name, an
// e-mail address unique once normalised (NormalEmail) and optionally a
// phone number unique once normalised as the kiosk's limits compare it
// (NormalPhone); bookings, reservations and waiting-list entries may
// belong to one. Two sign-ups for one address at the same moment make one
// customer: a unique index in the database decides, and the other is told
// whose the address is (CustomerTaken). Erasure blanks a customer's name,
// address and phone on the account and on everything that belongs to it,
// and keeps the money.
//
// The watchlist is "tell me when this film goes on sale": people waiting
// for a film that has no show to come. The first show added for it marks
// each of them to call, once, in the transaction that adds the show.

// The audit trail's actions of customers and the watchlist: an account
// opened, a booking attached to one, an account erased; someone put on a
// film's watchlist or called.
const (
	AuditCustomer AuditAction = "customer"
	AuditWatch    AuditAction = "film_watch"
)

// MaxFilmWatchers bounds the list of one film's watchers.
const MaxFilmWatchers = 200

// MaxEmailLen bounds an e-mail address (RFC 5321's path limit).
const MaxEmailLen = 254

// Customer is an account: who the box office knows by name and address.
type Customer struct {
	ID    int64
	Name  string
	Email string // NormalEmail's form; "" once erased
	Phone string // NormalPhone's international digits; "" for none
	// CreatedBy is who opened the account, CreatedAt when.
	CreatedAt time.Time
	CreatedBy string
	// ErasedAt is when the customer's name, address and phone were
	// blanked at their request (EraseCustomer), and ErasedBy by whom;
	// nil while they are kept.
	ErasedAt *time.Time
	ErasedBy string
}

// Erased reports whether the customer's details were erased.
func (c *Customer) Erased() bool { return c.ErasedAt != nil }

// Label is how a list names the customer: "Ann Lee <ann@example.com>",
// or "(erased)".
func (c *Customer) Label() string {
	if c.Erased() {
		return "(erased)"
	}
	return Clean(c.Name) + " <" + Clean(c.Email) + ">"
}

// NewCustomer is an account to open, as typed.
type NewCustomer struct {
	Name, Email, Phone string
}

// Normal validates c and returns it in the form stored: the name
// cleaned (ValidName), the address NormalEmail's, the phone NormalPhone's
// digits for country, or "" when none was typed. EInvalid names what is
// wrong.
func (c NewCustomer) Normal(country string) (NewCustomer, error) {
	if err := ValidName(c.Name); err != nil {
		return c, err
	}
	email, err := NormalEmail(c.Email)
	if err != nil {
		return c, err
	}
	phone := ""
	if strings.TrimSpace(c.Phone) != "" {
		if phone, err = NormalPhone(c.Phone, country); err != nil {
			return c, err
		}
	}
	return NewCustomer{Name: CleanLine(c.Name, MaxNameLen), Email: email, Phone: phone}, nil
}

// NormalEmail is the one form of an e-mail address that every rule
// compares and every store keeps: the white space around it dropped, in
// lower case, so "Ann@Example.com", " ann@example.com " and
// "ANN@EXAMPLE.COM" are one address. It refuses an address without one @
// between a name and a domain, one with spaces or characters that do not
// print, and one longer than MaxEmailLen.
func NormalEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	switch {
	case e == "":
		return "", Errorf(EInvalid, "Type an e-mail address.")
	case len(e) > MaxEmailLen:
		return "", Errorf(EInvalid, "Type an e-mail address of at most %d characters.", MaxEmailLen)
	case strings.ContainsFunc(e, func(r rune) bool { return Unsafe(r) || r == ' ' || r == '\u00a0' }):
		return "", Errorf(EInvalid, "Type the e-mail address without spaces or characters that cannot be printed.")
	}
	name, domain, ok := strings.Cut(e, "@")
	if !ok || name == "" || domain == "" || strings.Contains(domain, "@") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", Errorf(EInvalid, "%q is not an e-mail address like ann@example.com.", CleanLine(email, 60))
	}
	return e, nil
}

// CustomerSearch is what a clerk typed to find a customer, read as one of
// three things (ParseCustomerSearch).
type CustomerSearch struct {
	// Email is an address to match exactly (NormalEmail), when the text
	// has an @.
	Email string
	// PhoneRev is the last digits of a phone number typed (PhoneSearch),
	// last first: the prefix a customer's reversed phone digits start
	// with (ReverseDigits), so "07700 900123" finds +44 7700 900123.
	PhoneRev string
	// Words are the starts of the words of a name (NameWords): a
	// customer is found when every one starts a word of their name.
	Words []string
}

// ParseCustomerSearch reads what a clerk typed: an e-mail address, a
// phone number, or the starts of the words of a name, in that order of
// trying. EInvalid for text that is none of them.
func ParseCustomerSearch(text string) (CustomerSearch, error) {
	text = CleanLine(text, 100)
	if strings.Contains(text, "@") {
		email, err := NormalEmail(text)
		return CustomerSearch{Email: email}, err
	}
	if digits := PhoneSearch(text); digits != "" {
		return CustomerSearch{PhoneRev: ReverseDigits(digits)}, nil
	}
	if words := NameWords(text); len(words) > 0 {
		return CustomerSearch{Words: words}, nil
	}
	return CustomerSearch{}, Errorf(EInvalid, "Type an e-mail address, a phone number or a name.")
}

// CustomerTakenError refuses an account for an e-mail address or phone
// number that belongs to a customer already. Its code is EConflict.
// CustomerID names the customer for staff, who may look them up; it is 0
// for a customer's own session (the kiosk), which is never told whose an
// address is.
type CustomerTakenError struct {
	CustomerID int64
	// What is taken: TakenEmail or TakenPhone.
	What string
	err  *Error
}

func (e *CustomerTakenError) Error() string { return e.err.Error() }

// Unwrap is the *Error with the code and the words (ErrorCode,
// ErrorMessage).
func (e *CustomerTakenError) Unwrap() error { return e.err }

// CustomerTaken is the answer to an account asked for with an address
// (what: "e-mail address" or "phone number") that belongs to c. Staff
// (clerks and up) are told whose it is, as they could find out by
// searching: "That e-mail address belongs to customer 12 (Ann Lee).". A
// session below a clerk (the public kiosk) is told only that it is
// registered, never by whom: naming the account of whoever owns an
// address to anyone who types it would give away who is a customer and
// their name.
func CustomerTaken(actor Actor, what string, c Customer) *CustomerTakenError {
	if actor.Role < RoleClerk {
		return &CustomerTakenError{What: what, err: Errorf(EConflict, "That %s is registered already: ask at the box office.", what)}
	}
	return &CustomerTakenError{CustomerID: c.ID, What: what,
		err: Errorf(EConflict, "That %s belongs to customer %d (%s).", what, c.ID, CleanLine(c.Name, MaxNameLen))}
}

// What a CustomerTakenError says is taken.
const (
	TakenEmail = "e-mail address"
	TakenPhone = "phone number"
)

// ErrNoCustomer is the answer for an id that names no customer.
func ErrNoCustomer(id int64) error { return Errorf(ENotFound, "There is no customer %d.", id) }

// ErrCustomerErased refuses to attach anything to an erased customer.
func ErrCustomerErased(id int64) error {
	return Errorf(EInvalid, "Customer %d was erased at their request: open a new account.", id)
}

// CustomerDetail is a customer with what belongs to them, newest first.
type CustomerDetail struct {
	Customer
	Bookings     []Booking
	Reservations []Reservation
	Waitlist     []WaitlistEntry // Show set
	Watching     []FilmWatch     // Film set
	GiftCards    []GiftCardSummary
}

// Erasure is what EraseCustomer blanked: the account, and how many of
// the customer's bookings, reservations, waiting-list entries and film
// watches.
type Erasure struct {
	Customer     Customer
	Bookings     int
	Reservations int
	Waitlist     int
	Watches      int
}

// String says what was erased, for a person.
func (e *Erasure) String() string {
	return fmt.Sprintf("Erased customer %d: name, e-mail address and phone blanked on the account, %d bookings, %d reservations, %d waiting-list entries and %d film watches; the money is kept.",
		e.Customer.ID, e.Bookings, e.Reservations, e.Waitlist, e.Watches)
}

// WaitlistRequest puts a party on a show's waiting list (AddWaitlist),
// for the customer CustomerID when it is not 0.
type WaitlistRequest struct {
	ShowID      int64
	Name, Phone string
	Seats       int
	CustomerID  int64
}

// FilmWatch is someone waiting for a film to go on sale.
type FilmWatch struct {
	ID, FilmID int64
	Film       Film // filled in where a list names the film
	CustomerID int64
	Name       string
	Phone      string // as typed, cleaned
	Email      string // NormalEmail's form, "" for none
	CreatedAt  time.Time
	CreatedBy  string
	// NotifiedAt is when the film's first show was added, ShowID that
	// show: call them. Nil while the film has none.
	NotifiedAt *time.Time
	ShowID     int64
	Show       Show // filled in the list of watchers to call
	CalledAt   *time.Time
	CalledBy   string
}

// WatchRequest puts someone on a film's watchlist: a name and a phone
// to call (an e-mail address optional), or a customer (CustomerID) whose
// details fill in what is not typed.
type WatchRequest struct {
	FilmID      int64
	CustomerID  int64
	Name, Phone string
	Email       string
}

// Customers are the customer accounts.
type Customers interface {
	// AddCustomer opens an account (NewCustomer.Normal). Needs
	// ActionCustomers. EInvalid for a bad name, address or phone;
	// *CustomerTakenError (EConflict) when the address or the phone
	// belongs to a customer already: a unique index of the store decides,
	// so of sign-ups for one address at once exactly one is made.
	AddCustomer(ctx context.Context, actor Actor, c NewCustomer) (*Customer, error)
	// FindCustomers finds customers by e-mail address (exactly), phone
	// (its last digits) or the starts of the words of their name
	// (ParseCustomerSearch), newest first; erased customers are never
	// found. Needs ActionFindCustomers. EInvalid for text that is none.
	FindCustomers(ctx context.Context, actor Actor, text string) ([]Customer, error)
	// Customer reads a customer with their bookings, reservations,
	// waiting-list entries and film watches. Needs ActionFindCustomers.
	// ENotFound.
	Customer(ctx context.Context, actor Actor, id int64) (*CustomerDetail, error)
	// AttachCustomer makes a booking the customer's (the counter calls it
	// right after a sale); attaching it to its own customer again changes
	// nothing. Needs ActionCustomers. ENotFound for the number or the
	// customer; EInvalid for an erased customer; EConflict when the
	// booking belongs to another customer.
	AttachCustomer(ctx context.Context, actor Actor, number string, customerID int64) error
	// EraseCustomer blanks, at the customer's request, their name,
	// address and phone on the account and on every booking,
	// reservation, waiting-list entry and film watch that is theirs, in
	// one transaction; payments, totals and tickets are kept. It cannot
	// be undone. Needs ActionEraseCustomer. ENotFound; *StaleError
	// (EConflict) when erased already.
	EraseCustomer(ctx context.Context, actor Actor, id int64) (*Erasure, error)

	// AddWaitlistEntry is AddWaitlist for a request, which may name the
	// customer the entry belongs to. Needs ActionWaitlist. As
	// AddWaitlist; ENotFound for an unknown customer, EInvalid for an
	// erased one.
	AddWaitlistEntry(ctx context.Context, actor Actor, req WaitlistRequest) (*WaitlistEntry, error)
}

// Watchlist is the film watchlist.
type Watchlist interface {
	// Watch puts someone on a film's watchlist. Needs ActionWatchlist.
	// EInvalid without a name or phone, for a bad phone or address, or a
	// retired film; EConflict when the film has a show to come (sell a
	// ticket now) or the phone is on its watchlist already; ENotFound for
	// the film or the customer.
	Watch(ctx context.Context, actor Actor, req WatchRequest) (*FilmWatch, error)
	// WatchCalls lists the watchers whose film got its first show and
	// whom nobody has called yet, oldest first. Needs ActionWatchlist.
	WatchCalls(ctx context.Context, actor Actor) ([]FilmWatch, error)
	// FilmWatchers lists everyone on one film's watchlist, each once,
	// oldest first (at most MaxFilmWatchers): waiting, to call (Show set:
	// the show that put the film on sale) or called. Needs
	// ActionWatchlist. ENotFound for the film.
	FilmWatchers(ctx context.Context, actor Actor, filmID int64) ([]FilmWatch, error)
	// MarkWatchCalled records that a clerk called a watcher, once. Needs
	// ActionWatchlist. *StaleError (EConflict) when another counter did;
	// EConflict when their film has no show yet; ENotFound.
	MarkWatchCalled(ctx context.Context, actor Actor, id int64) error
}
