export function Greeting({ name }) {
  return <h1 className="greeting">Hello, {name}!</h1>;
}

export const Counter = ({ start }) => {
  const [n, setN] = useState(start);
  return <button onClick={() => setN(n + 1)}>{n}</button>;
};
