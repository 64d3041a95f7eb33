type Props = { items: string[] };

export const List = ({ items }: Props) => {
  const sorted = [...items].sort();
  return <ul>{sorted.map((item) => <li key={item}>{item}</li>)}</ul>;
};
