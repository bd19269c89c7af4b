package store

import (
	"slices"
	"strings"
	"sync"

	"boxoffice/booking"
)

// saleCache is what the store remembers between a hold and its checkout,
// so a checkout can be decided before its transaction and written in one
// step (SellHold) that verifies each thing remembered: the holds this
// store made (their seats), each show's price list, the price table at
// its generation and each clerk's open shift. Nothing here is trusted: a
// wrong entry costs the checkout its one step, and the checked path then
// reads the truth and puts it here.
type saleCache struct {
	mu     sync.Mutex
	holds  map[int64]cachedHold
	order  []int64 // hold ids, oldest first, to forget the oldest
	lists  map[int64]string
	shifts map[string]int64 // lower-cased clerk name -> open shift
	prices *booking.PriceTable
	gen    string
}

// cachedHold is a hold this store made, as it last knew it.
type cachedHold struct {
	owner  string
	showID int64
	seats  []booking.Seat // hall order
}

// maxCachedHolds bounds the holds remembered: a counter sells a hold
// within minutes of making it, and more holds than this are open only on
// a store serving hundreds of counters, whose oldest are let go first.
const maxCachedHolds = 4096

func newSaleCache() *saleCache {
	return &saleCache{holds: map[int64]cachedHold{}, lists: map[int64]string{}, shifts: map[string]int64{}}
}

// hold remembers h, made or changed just now, with the show's price list
// when known ("": keep what is known).
func (c *saleCache) hold(h *booking.Hold, list string, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.holds[h.ID]; !ok {
		c.order = append(c.order, h.ID)
	}
	c.holds[h.ID] = cachedHold{owner: h.Owner, showID: h.ShowID, seats: slices.Clone(h.Seats)}
	if known {
		c.lists[h.ShowID] = list
	}
	for len(c.order) > maxCachedHolds {
		delete(c.holds, c.order[0])
		c.order = c.order[1:]
	}
}

// forget drops hold id: sold, released or changed in a way not known.
func (c *saleCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.holds, id)
}

// forgetOwner drops the holds of owner (with prefix, of every owner
// starting with it).
func (c *saleCache) forgetOwner(owner string, prefix bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, h := range c.holds {
		if h.owner == owner || prefix && strings.HasPrefix(h.owner, owner) {
			delete(c.holds, id)
		}
	}
}

// sale is what a checkout of holdID by owner may be decided from: the
// hold's seats and show, the show's price list, the price table at its
// generation; ok is false when any is not known.
func (c *saleCache) sale(holdID int64, owner string) (h cachedHold, list string, prices *booking.PriceTable, gen string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok = c.holds[holdID]
	if !ok || h.owner != owner || c.prices == nil || c.gen == "" {
		return h, "", nil, "", false
	}
	list, ok = c.lists[h.showID]
	return h, list, c.prices, c.gen, ok
}

// made reports whether hold id is one this store made for owner, as
// last known.
func (c *saleCache) made(id int64, owner string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.holds[id]
	return ok && h.owner == owner
}

// knowsList reports whether a show's price list is remembered.
func (c *saleCache) knowsList(showID int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.lists[showID]
	return ok
}

// generation is the price generation the remembered table is at.
func (c *saleCache) generation() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// priceTable is the table remembered at generation gen, or nil.
func (c *saleCache) priceTable(gen string) *booking.PriceTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == "" || c.gen != gen {
		return nil
	}
	return c.prices
}

// setPrices remembers the table read at generation gen.
func (c *saleCache) setPrices(t *booking.PriceTable, gen string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prices, c.gen = t, gen
}

// setList remembers a show's price list.
func (c *saleCache) setList(showID int64, list string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists[showID] = list
}

// shift is clerk name's open shift as last known; 0 when none is.
func (c *saleCache) shift(name string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shifts[strings.ToLower(name)]
}

// setShift remembers clerk name's open shift (0: forget it).
func (c *saleCache) setShift(name string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == 0 {
		delete(c.shifts, strings.ToLower(name))
		return
	}
	c.shifts[strings.ToLower(name)] = id
}
