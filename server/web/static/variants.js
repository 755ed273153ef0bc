// The variants of the rule book (server/rules/variants.py), in its order.
export const VARIANTS = [
  ["belle-lucie", "La Belle Lucie"], ["three-shuffles-and-a-draw", "Three Shuffles and a Draw"],
  ["trefoil", "Trefoil"], ["the-fan", "The Fan"], ["super-flower-garden", "Super Flower Garden"],
  ["shamrocks", "Shamrocks"], ["house-in-the-wood", "House in the Wood"],
  ["fan-with-reserve", "Fan with Reserve"], ["no-redeal", "No Redeal"],
];
export const variantName = (id) => (VARIANTS.find(([v]) => v === id) ?? [id, id])[1];
