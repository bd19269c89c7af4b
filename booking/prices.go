package booking

import "strings"

// PriceKey names one row of the price table: a ticket type's price for one
// seat kind on one price list ("" is the standing list).
type PriceKey struct {
	List string // "" or a price list's name, lower case ("evening")
	Type string // ticket type code ("adult")
	Kind SeatKind
}

// PriceEntry is one price the cinema set for a seat kind and/or a list.
type PriceEntry struct {
	PriceKey
	Amount Money
}

// PriceList is a named set of prices a show can carry ("evening").
type PriceList struct {
	Name  string
	Label string
}

// PriceTable is every price a sale may be priced at: each ticket type's own
// price (a standard seat on the standing list) and the rows that override
// it for a seat kind or a price list. PriceFor reads it.
type PriceTable struct {
	Types   []TicketType       // by sort order; Price is the type's own price
	Entries map[PriceKey]Money // the overrides
	Lists   []PriceList        // by name
}

// Priced is a seat's price and where it came from: "" for the ticket
// type's own price, else "premium seat", "evening list" or "evening list ·
// premium seat".
type Priced struct {
	Amount Money
	Source string
}

// PriceFor resolves the price of ticket type typeCode on a seat of kind
// kind at a show on price list list. The first of these that the table
// has wins: (list, type, kind), (list, type, standard), ("", type, kind),
// the type's own price. A wheelchair or companion place then never costs
// more than a standard seat of the same type and list: it pays the lower
// of the two. ok is false for a ticket type the table does not have.
func PriceFor(t *PriceTable, list, typeCode string, kind SeatKind) (Priced, bool) {
	p, ok := rawPrice(t, list, typeCode, kind)
	if !ok || !kind.Accessible() {
		return p, ok
	}
	if std, _ := rawPrice(t, list, typeCode, Standard); std.Amount < p.Amount {
		return std, true
	}
	return p, true
}

// rawPrice is PriceFor before the cap on accessible places.
func rawPrice(t *PriceTable, list, typeCode string, kind SeatKind) (Priced, bool) {
	base, ok := t.typePrice(typeCode)
	if !ok {
		return Priced{}, false
	}
	if list != "" {
		if a, ok := t.Entries[PriceKey{list, typeCode, kind}]; ok {
			return Priced{a, priceSource(list, kind)}, true
		}
		if a, ok := t.Entries[PriceKey{list, typeCode, Standard}]; ok {
			return Priced{a, priceSource(list, Standard)}, true
		}
	}
	if a, ok := t.Entries[PriceKey{"", typeCode, kind}]; ok {
		return Priced{a, priceSource("", kind)}, true
	}
	return Priced{base, ""}, true
}

func (t *PriceTable) typePrice(code string) (Money, bool) {
	if t == nil {
		return 0, false
	}
	for _, ty := range t.Types {
		if ty.Code == code {
			return ty.Price, true
		}
	}
	return 0, false
}

// priceSource says where a row of the table came from, for the clerk and
// the ticket: "evening list · premium seat".
func priceSource(list string, kind SeatKind) string {
	var parts []string
	if list != "" {
		parts = append(parts, list+" list")
	}
	if kind != Standard {
		parts = append(parts, kind.String()+" seat")
	}
	return strings.Join(parts, " · ")
}

// MaxListName is the longest price list name.
const MaxListName = 20

// MaxTicketTypeCode is the longest ticket type code: what a manager may
// set, so what a kiosk's reservation and a voucher's limit take too.
const MaxTicketTypeCode = 20

// ValidTicketTypeCode reports whether code has a ticket type code's
// shape: 1 to MaxTicketTypeCode lower-case letters, digits, - or _.
func ValidTicketTypeCode(code string) bool {
	return code != "" && len(code) <= MaxTicketTypeCode && strings.Trim(code, "abcdefghijklmnopqrstuvwxyz0123456789_-") == ""
}

// ErrTicketTypeCode is the answer for a ticket type code of another shape.
func ErrTicketTypeCode() error {
	return Errorf(EInvalid, "A ticket type code is 1 to %d lower-case letters, digits, - or _.", MaxTicketTypeCode)
}

// ParseListName checks a price list name typed by a person: 1 to
// MaxListName letters, digits, - or _, read in lower case. "" is the
// standing list when allowEmpty.
func ParseListName(s string, allowEmpty bool) (string, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" && allowEmpty {
		return "", nil
	}
	if name == "" || len(name) > MaxListName || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return "", Errorf(EInvalid, "A price list name is 1 to %d letters, digits, - or _.", MaxListName)
	}
	return name, nil
}

// Validate refuses a price entry that cannot be stored: a bad list name,
// an unknown seat kind, a negative or too large amount, or the standing
// list's standard seat, which is the ticket type's own price (SetPrice).
func (e PriceEntry) Validate() error {
	if _, err := ParseListName(e.List, true); err != nil {
		return err
	}
	if e.Type == "" {
		return Errorf(EInvalid, "A price needs a ticket type.")
	}
	if e.Kind < Standard || e.Kind > Companion {
		return Errorf(EInvalid, "A seat kind is standard, premium, wheelchair or companion.")
	}
	if e.Amount < 0 || e.Amount > MaxMoney {
		return Errorf(EInvalid, "A price is between 0.00 and %s.", MaxMoney.String())
	}
	if e.List == "" && e.Kind == Standard {
		return Errorf(EInvalid, "A standard seat on the standing list costs the ticket type's own price: set it with the type's name.")
	}
	return nil
}

// QuoteRequest asks what seats of a show cost at the ticket types chosen.
type QuoteRequest struct {
	ShowID  int64
	SeatIDs []int64
	// Types maps seat label to ticket type code; seats not listed are
	// adult, as in CheckoutRequest.
	Types map[string]string
}

// QuoteLine is one seat's ticket: its type and price, and where the price
// came from.
type QuoteLine struct {
	Seat     Seat
	Type     string // ticket type code
	TypeName string
	Priced
}

// Quote is what a sale would cost now: one line per seat and the total.
// Table and List are what it was priced from, so a screen can re-price a
// change of ticket type with QuoteSeats without asking the store again;
// the checkout prices again inside its transaction all the same.
type Quote struct {
	ShowID int64
	List   string
	Lines  []QuoteLine
	Total  Money
	Table  *PriceTable
}

// QuoteSeats prices seats at a show on list, each at the type types names
// for its label (adult when none), with PriceFor. EInvalid names a ticket
// type the table does not have.
func QuoteSeats(t *PriceTable, list string, seats []Seat, types map[string]string) (*Quote, error) {
	q := &Quote{List: list, Table: t, Lines: make([]QuoteLine, 0, len(seats))}
	for _, seat := range seats {
		code := typeFor(types, seat.Label)
		p, ok := PriceFor(t, list, code, seat.Kind)
		if !ok {
			return nil, Errorf(EInvalid, "Unknown ticket type %q for %s.", CleanLine(code, 16), CleanLine(seat.Label, 8))
		}
		q.Lines = append(q.Lines, QuoteLine{Seat: seat, Type: code, TypeName: t.typeName(code), Priced: p})
		q.Total += p.Amount
	}
	return q, nil
}

// typeFor is the ticket type chosen for a seat label: adult unless types
// names another, case-insensitively.
func typeFor(types map[string]string, label string) string {
	if c, ok := types[label]; ok {
		return c
	}
	for l, c := range types {
		if strings.EqualFold(l, label) {
			return c
		}
	}
	return "adult"
}

func (t *PriceTable) typeName(code string) string {
	for _, ty := range t.Types {
		if ty.Code == code {
			return ty.Name
		}
	}
	return code
}
