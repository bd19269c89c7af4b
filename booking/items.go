package booking

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Concessions: the popcorn, drinks and ice cream a counter sells beside
// seats. An item has a code the clerk types ("popcorn"), a name for the
// screen and the receipt, a price, a category (free text, the key VAT
// rates will hang on) and a stock count, or none (unlimited). A sale of
// items is an order with a number of its own (IT-7KQ2X9TD): it is paid
// into the clerk's shift like a ticket sale and refunded line by line,
// each line's stock going back once.

// Limits on what an item and a sale of items may be.
const (
	MaxItemCode     = 16
	MaxItemName     = 40
	MaxItemCategory = 24
	// MaxItemStock bounds a stock count and a restock: more than any
	// counter's store room, far from overflow.
	MaxItemStock = 1_000_000
	// MaxItemQty is the most of one item on one line of a sale.
	MaxItemQty = 99
	// MaxItemLines is the most lines (distinct items) on one sale.
	MaxItemLines = 20
	// LowStock is the count at or below which an item is named on the X
	// report's low-stock line.
	LowStock = 10
)

// ActionManageItems adds items, prices them, counts and restocks them and
// retires them.
const ActionManageItems Action = "manage_items"

// The audit trail's rows of items: a change to an item (added, priced,
// retired) and a change to its stock (counted, restocked), each with the
// reason. A sale of items and its refunds are AuditSale and AuditRefund
// rows naming the order.
const (
	AuditItemChange  AuditAction = "item_change"
	AuditStockChange AuditAction = "stock_change"
)

// Item is one thing the counter sells beside seats.
type Item struct {
	ID       int64
	Code     string // lower case: "popcorn"
	Name     string // "Popcorn (large)"
	Category string // lower case, "" for none: "snacks"
	Price    Money
	// Stock is how many are left; nil for an item sold without a count
	// (unlimited).
	Stock   *int
	Retired bool
}

// Low reports whether the item is counted and at or below LowStock.
func (it Item) Low() bool { return !it.Retired && it.Stock != nil && *it.Stock <= LowStock }

// StockText is the stock as a clerk reads it: "47", or "unlimited".
func (it Item) StockText() string {
	if it.Stock == nil {
		return "unlimited"
	}
	return strconv.Itoa(*it.Stock)
}

// ParseItemCode reads an item's code as typed: lower case letters, digits,
// - and _, 1 to MaxItemCode of them, any case typed.
func ParseItemCode(s string) (string, error) {
	code := strings.ToLower(strings.TrimSpace(s))
	ok := code != "" && len(code) <= MaxItemCode
	for _, r := range code {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	if !ok {
		return "", Errorf(EInvalid, "An item's code is 1 to %d letters, digits, - or _, like popcorn, not %q.", MaxItemCode, CleanLine(s, 20))
	}
	return code, nil
}

// ParseItemStock reads a stock count as typed: a whole number from 0 to
// MaxItemStock, or "unlimited" (nil).
func ParseItemStock(s string) (*int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "unlimited" {
		return nil, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil || !allDigits(t) || n > MaxItemStock {
		return nil, Errorf(EInvalid, "A stock count is a whole number from 0 to %d, or unlimited, not %q.", MaxItemStock, CleanLine(s, 20))
	}
	return &n, nil
}

// ValidItem returns it cleaned for storing (its code, name and category
// read as ParseItemCode and CleanLine do, the category in lower case), or
// refuses it.
func ValidItem(it Item) (Item, error) {
	var err error
	if it.Code, err = ParseItemCode(it.Code); err != nil {
		return it, err
	}
	name := CleanLine(it.Name, MaxItemName+1)
	if name == "" || utf8.RuneCountInString(name) > MaxItemName {
		return it, Errorf(EInvalid, "An item's name has 1 to %d printable characters.", MaxItemName)
	}
	it.Name = name
	cat := strings.ToLower(CleanLine(it.Category, MaxItemCategory+1))
	if utf8.RuneCountInString(cat) > MaxItemCategory {
		return it, Errorf(EInvalid, "A category has at most %d characters.", MaxItemCategory)
	}
	it.Category = cat
	if err := checkItemPrice(it.Price); err != nil {
		return it, err
	}
	if it.Stock != nil && (*it.Stock < 0 || *it.Stock > MaxItemStock) {
		return it, Errorf(EInvalid, "A stock count is from 0 to %d.", MaxItemStock)
	}
	return it, nil
}

// checkItemPrice refuses a price outside 0..MaxMoney.
func checkItemPrice(p Money) error {
	if p < 0 || p > MaxMoney {
		return Errorf(EInvalid, "An item's price is from 0.00 to %s.", MaxMoney.String())
	}
	return nil
}

// ErrNoItem is the answer for a code that names no item.
func ErrNoItem(code string) error {
	return Errorf(ENotFound, "No item %q.", CleanLine(code, MaxItemCode+4))
}

// ErrItemRetired refuses a sale of an item taken off sale.
func ErrItemRetired(name string) error {
	return Errorf(EConflict, "%s is no longer sold.", CleanLine(name, MaxItemName))
}

// ErrSoldOut refuses a line asking for more of an item than is left:
// "Popcorn: 0 left; 1 asked."
func ErrSoldOut(name string, left, asked int) error {
	return Errorf(EConflict, "%s: %d left; %d asked.", CleanLine(name, MaxItemName), left, asked)
}

// ItemLine is one line of a sale as asked for: an item's code and how
// many.
type ItemLine struct {
	Code string
	Qty  int
}

// ParseItemLine reads "popcorn:2" (or "popcorn", one).
func ParseItemLine(s string) (ItemLine, error) {
	code, qty, hasQty := strings.Cut(strings.TrimSpace(s), ":")
	c, err := ParseItemCode(code)
	if err != nil {
		return ItemLine{}, err
	}
	n := 1
	if hasQty {
		n, err = strconv.Atoi(strings.TrimSpace(qty))
		if err != nil || n < 1 || n > MaxItemQty {
			return ItemLine{}, Errorf(EInvalid, "%q: how many is 1 to %d, like %s:2.", CleanLine(s, 24), MaxItemQty, c)
		}
	}
	return ItemLine{Code: c, Qty: n}, nil
}

// NormalItemLines checks lines and returns them with one line an item
// (two lines of one code added up) in code order: the order every sale
// takes its items' stock in, so two sales of the same items never wait
// on each other in opposite orders.
func NormalItemLines(lines []ItemLine) ([]ItemLine, error) {
	if len(lines) == 0 {
		return nil, Errorf(EInvalid, "Name the items to sell, like popcorn:2.")
	}
	byCode := map[string]int{}
	var out []ItemLine
	for _, l := range lines {
		code, err := ParseItemCode(l.Code)
		if err != nil {
			return nil, err
		}
		i, seen := byCode[code]
		if !seen {
			if len(out) == MaxItemLines {
				return nil, Errorf(EInvalid, "A sale has at most %d different items.", MaxItemLines)
			}
			i = len(out)
			byCode[code] = i
			out = append(out, ItemLine{Code: code})
		}
		if l.Qty < 1 || out[i].Qty+l.Qty > MaxItemQty {
			return nil, Errorf(EInvalid, "%s: how many is 1 to %d.", code, MaxItemQty)
		}
		out[i].Qty += l.Qty
	}
	slices.SortFunc(out, func(a, b ItemLine) int { return strings.Compare(a.Code, b.Code) })
	return out, nil
}

// ItemSaleRequest sells items alone at the counter. The payment is a
// checkout's (CheckoutRequest's rules: the key, cash or card, tendered,
// the total the clerk saw, a float to open the drawer with).
type ItemSaleRequest struct {
	Lines          []ItemLine
	IdempotencyKey string
	Method         PayMethod
	Tendered       Money // cash handed over; 0 is exact money
	// ExpectedTotal is the total the clerk saw; with CheckTotal a sale at
	// another total is refused (*PriceChangedError).
	ExpectedTotal Money
	CheckTotal    bool
	OpenFloat     *Money
}

// payment is the request's payment as a checkout's, whose rules it keeps.
func (r ItemSaleRequest) payment() CheckoutRequest {
	return CheckoutRequest{IdempotencyKey: r.IdempotencyKey, Method: r.Method, Tendered: r.Tendered,
		ExpectedTotal: r.ExpectedTotal, CheckTotal: r.CheckTotal, OpenFloat: r.OpenFloat}
}

// Validate refuses a request that no stock could make good: no lines or
// bad ones, a payment a checkout would refuse.
func (r ItemSaleRequest) Validate() error {
	if _, err := NormalItemLines(r.Lines); err != nil {
		return err
	}
	pay := r.payment()
	return pay.Validate()
}

// Payment works out, for a total, what was tendered and the change, as a
// checkout does (CheckoutRequest.Payment).
func (r ItemSaleRequest) Payment(total Money) (tendered, change Money, err error) {
	return r.payment().Payment(total)
}

// ItemOrder is a sale of items: its lines and its payments.
type ItemOrder struct {
	ID       int64
	Number   string // IT-7KQ2X9TD
	Lines    []ItemOrderLine
	Total    Money
	Payments []ItemPayment
	SoldBy   string
	Terminal string
	At       time.Time
}

// ItemOrderLine is one line of an order as sold: the item as it was then.
type ItemOrderLine struct {
	ID       int64
	ItemID   int64
	Code     string
	Name     string
	Category string
	Qty      int
	Price    Money // each
	// RefundedAt is when the line was refunded; zero while it stands.
	RefundedAt time.Time
}

// Amount is the line's money: Qty × Price.
func (l ItemOrderLine) Amount() Money { return Money(l.Qty) * l.Price }

// Refunded reports whether the line was refunded.
func (l ItemOrderLine) Refunded() bool { return !l.RefundedAt.IsZero() }

// ItemPayment is a payment of an order: its sale, or the refund of one
// of its lines (LineID).
type ItemPayment struct {
	Payment
	LineID int64
}

// Change is the change due on the order's sale, zero for a card.
func (o *ItemOrder) Change() Money {
	for _, p := range o.Payments {
		if p.Kind == PaymentSale {
			return p.Change
		}
	}
	return 0
}

// Method is how the order was paid.
func (o *ItemOrder) Method() PayMethod {
	for _, p := range o.Payments {
		if p.Kind == PaymentSale {
			return p.Method
		}
	}
	return ""
}

// NewOrderNumber returns a random order number like IT-7KQ2X9TD, from the
// same alphabet and of the same strength as a booking's.
func NewOrderNumber() string {
	var b [8]byte
	rand.Read(b[:])
	out := make([]byte, 0, 11)
	out = append(out, "IT-"...)
	for _, x := range b {
		out = append(out, NumberAlphabet[int(x)%len(NumberAlphabet)])
	}
	return string(out)
}

// NormalizeOrderNumber reads an order number as a clerk may type it —
// "it-7kq2x9td", "7KQ2X9TD" — in its stored form.
func NormalizeOrderNumber(n string) string {
	n = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(n), " ", ""))
	if !strings.HasPrefix(n, "IT-") {
		n = "IT-" + strings.TrimPrefix(n, "IT")
	}
	return n
}

// ErrNoOrder is the answer for a number that names no order.
func ErrNoOrder(number string) error {
	return Errorf(ENotFound, "No order %s.", CleanLine(number, 16))
}

// ItemRefundRequest refunds lines of an order: those of the items named
// by code, or every line still standing when Codes is empty. Approver,
// Addr and OpenFloat are a ticket refund's (RefundRequest).
type ItemRefundRequest struct {
	Number    string
	Codes     []string
	Reason    string
	Approver  *Credentials
	Addr      string
	OpenFloat *Money
}

// Validate refuses a refund without an order, with bad codes or too many.
func (r ItemRefundRequest) Validate() error {
	if CleanLine(r.Number, 20) == "" {
		return Errorf(EInvalid, "Which order? Give its number.")
	}
	if len(r.Codes) > MaxItemLines {
		return Errorf(EInvalid, "An order has at most %d lines.", MaxItemLines)
	}
	for _, c := range r.Codes {
		if _, err := ParseItemCode(c); err != nil {
			return err
		}
	}
	if r.OpenFloat != nil {
		return checkFloat("float", *r.OpenFloat)
	}
	return nil
}

// StockRequest counts an item's stock (a stock-take: the count found, or
// nil for unlimited) or restocks it (N more), with the reason, which the
// audit trail keeps with the difference.
type StockRequest struct {
	Code   string
	N      *int
	Reason string
}

// Validate refuses a request without a reason or with a count out of
// range. A restock (restock true) needs a count of at least one.
func (r StockRequest) Validate(restock bool) error {
	if _, err := ParseItemCode(r.Code); err != nil {
		return err
	}
	if CleanLine(r.Reason, 200) == "" {
		return Errorf(EInvalid, "Say why the stock changes (a stock-take, a delivery).")
	}
	switch {
	case restock && (r.N == nil || *r.N < 1 || *r.N > MaxItemStock):
		return Errorf(EInvalid, "A restock adds 1 to %d.", MaxItemStock)
	case r.N != nil && (*r.N < 0 || *r.N > MaxItemStock):
		return Errorf(EInvalid, "A stock count is from 0 to %d.", MaxItemStock)
	}
	return nil
}

// StockChange is an item after its stock changed, with the count it had
// before (nil: unlimited).
type StockChange struct {
	Item Item
	Was  *int
}

// Difference is the count now less the count before: 0 when either is
// unlimited.
func (c StockChange) Difference() int {
	if c.Was == nil || c.Item.Stock == nil {
		return 0
	}
	return *c.Item.Stock - *c.Was
}

// StockText says a count, "unlimited" for nil.
func StockText(n *int) string { return Item{Stock: n}.StockText() }

// StockDetail is what the audit trail says of a stock change: "popcorn 50
// -> 47 (-3): stock-take".
func StockDetail(code string, was, now *int, reason string) string {
	d := fmt.Sprintf("%s %s -> %s", code, StockText(was), StockText(now))
	if was != nil && now != nil {
		d += fmt.Sprintf(" (%+d)", *now-*was)
	}
	return d + ": " + reason
}

// ItemTally is what the items of one category took over a time or a
// shift: how many were sold and refunded, and their money.
type ItemTally struct {
	Category string // "" for items without one
	Sold     int
	Refunded int
	Sales    Money
	Refunds  Money
}

// Net is Sales − Refunds.
func (t ItemTally) Net() Money { return t.Sales - t.Refunds }

// CategoryName is a category as a report names it: "(none)" for items
// without one.
func CategoryName(c string) string {
	if c == "" {
		return "(none)"
	}
	return c
}

// ItemTakingsReport is the items sold and refunded in a range, by
// category, with the total: the part of the takings that is not tickets.
type ItemTakingsReport struct {
	From, To time.Time
	Rows     []ItemTally
	Total    ItemTally
}

// Totals sets the report's total from its rows.
func (r *ItemTakingsReport) Totals() {
	r.Total = ItemTally{Category: "total"}
	for _, t := range r.Rows {
		r.Total.Sold += t.Sold
		r.Total.Refunded += t.Refunded
		r.Total.Sales += t.Sales
		r.Total.Refunds += t.Refunds
	}
}

// Items is the concessions: the items, their stock, and their sale at
// the counter alone (on a ticket sale, later). Every method documents
// its role like the rest of the contract (contract.go).
type Items interface {
	// Items lists the items by code: the ones on sale, and the retired
	// ones too when all. Needs ActionSell.
	Items(ctx context.Context, actor Actor, all bool) ([]Item, error)
	// AddItem adds an item (ValidItem). Needs ActionManageItems. EInvalid
	// for a bad item; EConflict when its code is taken.
	AddItem(ctx context.Context, actor Actor, it Item) (*Item, error)
	// SetItemPrice changes an item's price; sales from then on use it,
	// orders made keep theirs. Needs ActionManageItems. EInvalid for the
	// price; ENotFound for the code.
	SetItemPrice(ctx context.Context, actor Actor, code string, price Money) (*Item, error)
	// StockTake sets an item's stock to the count found (req.N; nil makes
	// it unlimited), audited with the reason and the difference. Needs
	// ActionManageItems. EInvalid for a bad request; ENotFound.
	StockTake(ctx context.Context, actor Actor, req StockRequest) (*StockChange, error)
	// Restock adds req.N to an item's stock, audited with the reason.
	// Needs ActionManageItems. EInvalid for a bad request or an item
	// without a count (StockTake it first); ENotFound.
	Restock(ctx context.Context, actor Actor, req StockRequest) (*StockChange, error)
	// RetireItem takes an item off sale for good; its orders stay. Needs
	// ActionManageItems. ENotFound; EConflict when retired already.
	RetireItem(ctx context.Context, actor Actor, code string) (*Item, error)

	// SellItems sells items alone in one transaction: each line's stock
	// taken by one guarded statement (never below zero, however many
	// counters sell at once), the order, its lines, its payment into the
	// actor's shift (cash needs one open, or req.OpenFloat) and one audit
	// row; the same idempotency key again returns the order the first
	// call made. Needs ActionSell. EInvalid for a bad request
	// (ItemSaleRequest.Validate), short cash or ErrNoShift; EConflict for
	// an item with too few left (ErrSoldOut: "Popcorn: 0 left; 1
	// asked.") or retired, with nothing of the sale written;
	// *PriceChangedError (EConflict) when CheckTotal is set and the total
	// is now another; ENotFound for an unknown code.
	SellItems(ctx context.Context, actor Actor, req ItemSaleRequest) (*ItemOrder, error)
	// ItemOrder looks an order up by number ("IT-7KQ2X9TD", any case, the
	// prefix optional). Needs ActionViewBooking. ENotFound.
	ItemOrder(ctx context.Context, actor Actor, number string) (*ItemOrder, error)
	// RefundItems refunds lines of an order in one transaction: each
	// line moves to refunded by compare-and-set, its stock goes back, and
	// one refund payment by the way the order was paid (cash out of the
	// refunder's shift, or one opened with req.OpenFloat); so each line's
	// stock and money go back once, however many refunds race. Needs
	// ActionRefund, or a req.Approver who has it. EInvalid for a bad
	// request, a code not on the order or ErrNoShift; *StaleError
	// (EConflict) for a line refunded already; EForbidden for a wrong
	// approval; ENotFound for the number.
	RefundItems(ctx context.Context, actor Actor, req ItemRefundRequest) (*ItemOrder, error)
	// ReportItemTakings adds up the items sold and refunded in the range
	// by category: a payment counts on the day it was taken. Needs
	// ActionViewReports. EInvalid for a bad range.
	ReportItemTakings(ctx context.Context, actor Actor, r ReportRange) (*ItemTakingsReport, error)
}
