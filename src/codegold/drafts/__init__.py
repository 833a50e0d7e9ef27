"""The gold-case lifecycle: cases drafted from traces (`codegold draft`) or from the code
(`codegold init`), marked ``status: draft`` until a person reviews them."""
