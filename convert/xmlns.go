package convert

// Namespace IDs the XML scanner resolves prefixes to. Transitional and
// strict Office Open XML share an ID, so that converters read both.
const (
	nsNone = iota
	nsXML
	nsSML
	nsWML
	nsDML
	nsPML
	nsRel
	nsPkgRel
	nsMC
	nsOffice
	nsText
	nsTable
	nsDraw
	nsPresentation
	nsStyle
	nsFO
	nsXLink
	nsChart
	nsWPD
	nsSVG
)

var namespaceIDs = map[string]int{
	"http://www.w3.org/1999/xlink":                                           nsXLink,
	"http://www.w3.org/XML/1998/namespace":                                   nsXML,
	"http://schemas.openxmlformats.org/spreadsheetml/2006/main":              nsSML,
	"http://purl.oclc.org/ooxml/spreadsheetml/main":                          nsSML,
	"http://schemas.openxmlformats.org/wordprocessingml/2006/main":           nsWML,
	"http://purl.oclc.org/ooxml/wordprocessingml/main":                       nsWML,
	"http://schemas.openxmlformats.org/drawingml/2006/main":                  nsDML,
	"http://purl.oclc.org/ooxml/drawingml/main":                              nsDML,
	"http://schemas.openxmlformats.org/presentationml/2006/main":             nsPML,
	"http://purl.oclc.org/ooxml/presentationml/main":                         nsPML,
	"http://schemas.openxmlformats.org/officeDocument/2006/relationships":    nsRel,
	"http://purl.oclc.org/ooxml/officeDocument/relationships":                nsRel,
	"http://schemas.openxmlformats.org/package/2006/relationships":           nsPkgRel,
	"http://schemas.openxmlformats.org/markup-compatibility/2006":            nsMC,
	"urn:oasis:names:tc:opendocument:xmlns:office:1.0":                       nsOffice,
	"urn:oasis:names:tc:opendocument:xmlns:text:1.0":                         nsText,
	"urn:oasis:names:tc:opendocument:xmlns:table:1.0":                        nsTable,
	"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0":                      nsDraw,
	"urn:oasis:names:tc:opendocument:xmlns:presentation:1.0":                 nsPresentation,
	"urn:oasis:names:tc:opendocument:xmlns:style:1.0":                        nsStyle,
	"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0":            nsFO,
	"urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0":               nsSVG,
	"http://schemas.openxmlformats.org/drawingml/2006/chart":                 nsChart,
	"http://purl.oclc.org/ooxml/drawingml/chart":                             nsChart,
	"http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing": nsWPD,
	"http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing":             nsWPD,
}
