package explore

import (
	"github.com/conform-kit/conform/validate"
	"strconv"
)

// The one value the schemas cannot describe: a card number, which must
// pass the Luhn check and starts with a brand's prefix.

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
