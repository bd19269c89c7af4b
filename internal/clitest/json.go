package clitest

// Show and Booking read the command line's --json answers.
type Show struct {
	ID       int64  `json:"id"`
	Film     string `json:"film"`
	Hall     string `json:"hall"`
	Start    string `json:"start"`
	Free     int    `json:"free"`
	Capacity int    `json:"capacity"`
}

type Booking struct {
	Number   string   `json:"booking"`
	Status   string   `json:"status"`
	ShowID   int64    `json:"show"`
	Seats    []string `json:"seats"`
	Total    string   `json:"total"`
	Change   string   `json:"change"`
	Customer string   `json:"customer,omitempty"`
	Phone    string   `json:"phone,omitempty"`
	Tickets  []struct {
		Seat   string `json:"seat"`
		Type   string `json:"type"`
		Price  string `json:"price"`
		Status string `json:"status"`
		Code   string `json:"code"`
	} `json:"tickets"`
	Payments []struct {
		Kind     string `json:"kind"`
		Method   string `json:"method"`
		Amount   string `json:"amount"`
		Tendered string `json:"tendered"`
		Change   string `json:"change"`
	} `json:"payments"`
}
