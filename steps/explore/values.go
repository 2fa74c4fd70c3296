package explore

import (
	"github.com/conform-kit/conform/validate"
	"strconv"
	"strings"
)

// Values drawn from the contract: each pool is ordered simplest first, so
// shrinking (which lowers draws) moves toward the plainest request that
// still shows the same finding.

// amountPool is integers around the boundaries where servers lose
// precision: 0, 1, 2^24 (float32), 2^31 and 2^32 (int32, uint32), 2^53
// (float64), and the cents of a fee.
var amountPool = []int64{
	1000, 1, 0, 2, 99, 100, 101, 9999, 10000,
	1<<24 - 1, 1 << 24, 1<<24 + 1,
	1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1, 1 << 32,
	1<<53 - 1, 1 << 53, 1<<53 + 1,
}

// amount draws an amount of cents: a pool value or any up to ten million,
// never one of the profile's sandbox triggers (they are facts of a sandbox,
// not of the contract).
func (g *generator) amount() int64 {
	for {
		var a int64
		if i := g.c.draw(len(amountPool) + 1); i < len(amountPool) {
			a = amountPool[i]
		} else {
			a = int64(g.c.draw(10_000_000))
		}
		if a != g.declineTrigger && a != g.disputeTrigger {
			return a
		}
	}
}

// positiveAmount is amount without 0.
func (g *generator) positiveAmount() int64 {
	if a := g.amount(); a > 0 {
		return a
	}
	return 1000
}

// asciiRunes and wideRunes fill strings: ASCII, and characters of two,
// three and four bytes in UTF-8, so a limit counted in bytes instead of
// characters shows.
const (
	asciiRunes = "abcdefghijklmnopqrstuvwxyz"
	wideRunes  = "éüñ日本語中文😀🎉"
)

// text is n characters, ASCII or multi-byte by the draw.
func (g *generator) text(n int, wide bool) string {
	src := []rune(asciiRunes)
	if wide {
		src = []rune(wideRunes)
	}
	var b strings.Builder
	for i := range n {
		b.WriteRune(src[i%len(src)])
	}
	return b.String()
}

// limited draws a string for a field of at most limit characters: a short
// one, exactly at the limit, or one over, ASCII or multi-byte. It returns
// the value, whether it breaks the limit, and the side for the coverage table.
func (g *generator) limited(limit int) (string, bool, string) {
	wide := g.c.draw(2) == 1
	switch g.c.draw(6) {
	case 3, 4:
		return g.text(limit, wide), false, sideAt
	case 5:
		return g.text(limit+1, wide), true, sideOver
	}
	return g.text(min(limit, 5), wide), false, ""
}

// cardNumber draws a number of a length the contract allows (12 to 19
// digits) with a valid Luhn digit, of a brand's prefix; or one it refuses.
func (g *generator) cardNumber() (number string, refuse bool, basisKey string) {
	prefixes := []string{"4", "51", "34", "6011", "37", "55"}
	length := 16
	switch g.c.draw(3) {
	case 1:
		length = 12 + g.c.draw(8) // 12..19
	case 2:
		length = pick(g.c, 15, 19, 12, 13, 14, 17, 18)
	}
	prefix := prefixes[g.c.draw(len(prefixes))]
	body := prefix
	seed := g.c.draw(1_000_000_000)
	for len(body) < length-1 {
		body += strconv.Itoa(seed % 10)
		seed = seed/10 + len(body)*7
	}
	digit, _ := validate.LuhnCheckDigit(body) // body is digits: a brand prefix and drawn digits
	number = body + string(digit)
	switch g.c.bias(5, 90) {
	case 1: // Luhn broken
		last := (int(number[len(number)-1]-'0') + 1) % 10
		return number[:len(number)-1] + strconv.Itoa(last), true, "card_number_check"
	case 2: // too short
		return number[:11], true, "card_number_check"
	case 3: // too long
		n := number
		for len(n) < 20 {
			n += "0"
		}
		return n, true, "card_number_check"
	case 4: // not digits (§4.3)
		return number[:4] + "A" + number[5:], true, ""
	}
	return number, false, ""
}

// quote renders a JSON string.
func quote(s string) string { return strconv.Quote(s) }
