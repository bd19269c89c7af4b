// Package qrscan reads QR codes off a terminal screen as a phone would:
// the half-block characters a screen draws a code with (package qrtext)
// become pixels, and ZXing's Go port decodes them. It is a test kit: the
// binary never links it.
package qrscan

import (
	"errors"
	"image"
	"image/color"
	"strings"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// Image paints half-block text as a terminal shows it with a QR style
// (light blocks on a dark background), scale pixels a module: the upper
// and lower halves of █, ▀ and ▄ are light, every other cell dark.
func Image(text string, scale int) image.Image {
	lines := strings.Split(text, "\n")
	w := 0
	for _, l := range lines {
		w = max(w, len([]rune(l)))
	}
	img := image.NewGray(image.Rect(0, 0, w*scale, 2*len(lines)*scale))
	for ly, line := range lines {
		for x, r := range []rune(line) {
			top := r == '█' || r == '▀'
			bottom := r == '█' || r == '▄'
			for dy := range scale {
				for dx := range scale {
					if top {
						img.SetGray(x*scale+dx, 2*ly*scale+dy, color.Gray{Y: 255})
					}
					if bottom {
						img.SetGray(x*scale+dx, (2*ly+1)*scale+dy, color.Gray{Y: 255})
					}
				}
			}
		}
	}
	return img
}

// Decode reads the QR code drawn in text, which may be a whole screen:
// the code is cut out first (the smallest box holding every half block,
// its quiet zone included), so the words beside it do not disturb the
// reader.
func Decode(text string) (string, error) {
	lines := strings.Split(text, "\n")
	top, bottom, left, right := -1, -1, -1, -1
	for y, l := range lines {
		for x, r := range []rune(l) {
			if r != '█' && r != '▀' && r != '▄' {
				continue
			}
			if top < 0 {
				top = y
			}
			bottom = y
			if left < 0 || x < left {
				left = x
			}
			right = max(right, x)
		}
	}
	if top < 0 {
		return "", errors.New("no QR code on the screen")
	}
	cut := make([]string, 0, bottom-top+1)
	for _, l := range lines[top : bottom+1] {
		r := []rune(l)
		row := make([]rune, right-left+1)
		for i := range row {
			row[i] = ' '
			if left+i < len(r) {
				row[i] = r[left+i]
			}
		}
		cut = append(cut, string(row))
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(Image(strings.Join(cut, "\n"), 6))
	if err != nil {
		return "", err
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}
